import { IsIn, IsOptional, IsString, Matches, MaxLength } from 'class-validator';

/** An EST request the gateway forwards to protocol-frontends as it came (ADR 0058, the way of ADR 0053). */
export class EstHttpForwardRequest {
  @IsIn(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'])
  method!: string;

  @IsString()
  @Matches(/^\/\.well-known\/est\/[\x21-\x7e]{0,200}$/, { message: 'path must be a /.well-known/est/ path' })
  path!: string;

  /** The client's Authorization header (HTTP Basic): checked by protocol-frontends, never logged. */
  @IsOptional()
  @IsString()
  @MaxLength(1024)
  authorization?: string;

  @IsOptional()
  @IsString()
  @MaxLength(256 * 1024)
  body?: string;
}

export interface EstHttpForwardAnswer {
  status: number;
  headers: Record<string, string>;
  body?: string;
}
