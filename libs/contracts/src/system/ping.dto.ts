import { IsOptional, IsString } from 'class-validator';

/** `<service>.v1.ping`: answered by every service; used by readiness checks and the e2e smoke. */
export class PingRequest {
  @IsOptional()
  @IsString()
  from?: string;
}

export interface PingResponse {
  service: string;
  instance: string;
}
