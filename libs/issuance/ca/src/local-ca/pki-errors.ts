import { CertlaneError, ErrorCode } from '@certlane/contracts';
import { isPkiError } from '@certlane/pki';

/**
 * A PkiError raised by input the caller sent (a CSR, a certificate to install) becomes a 400 that
 * names the rule (`csr_invalid`, details.rule = the pki code); anything else is rethrown.
 */
export function asInputError(error: unknown, what: string): unknown {
  if (isPkiError(error)) {
    return new CertlaneError(ErrorCode.CsrInvalid, `${what}: ${error.message}`, { rule: error.code });
  }
  return error;
}
