import { CertlaneError, ErrorCode } from '@certlane/contracts';

/** 404 with the resource's error code: `<what> "<id>" not found`. */
export function notFound(code: ErrorCode, what: string, id: string): CertlaneError {
  return new CertlaneError(code, `${what} ${JSON.stringify(id)} not found`);
}
