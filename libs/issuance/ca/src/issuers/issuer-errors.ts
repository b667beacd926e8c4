import { CertlaneError, ErrorCode } from '@certlane/contracts';
import { isIssuerError } from '@certlane/pki';

/** How long a caller waits before trying a CA that reported itself unavailable again. */
const UNAVAILABLE_RETRY_AFTER_SECONDS = 30;

/**
 * A connector's IssuerError as the API answers it (ADR 0082): the CA refusing the request is a 400
 * on the CSR, a CA that is down a 503 with Retry-After, an issuer to fix `issuer_config_invalid`,
 * an operation the kind lacks 501. Anything else is rethrown as it is.
 */
export function asCertlaneError(error: unknown): unknown {
  if (!isIssuerError(error)) return error;
  switch (error.kind) {
    case 'rejected':
      return CertlaneError.validation([{ field: 'csr_pem', message: error.message }]);
    case 'unavailable':
      return new CertlaneError(ErrorCode.ServiceUnavailable, error.message, {
        retry_after_seconds: UNAVAILABLE_RETRY_AFTER_SECONDS,
      });
    case 'misconfigured':
      return new CertlaneError(ErrorCode.IssuerConfigInvalid, error.message);
    case 'unsupported':
      return new CertlaneError(ErrorCode.NotImplemented, error.message);
  }
}
