import { CertlaneError, ErrorCode } from '@certlane/contracts';
import { CertificationRequest, isPkiError, parseCsrAsync } from '@certlane/pki';

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

/** The CSR an issuance request carries, its signature checked: a 400 `csr_invalid` when it fails. */
export async function requestedCsr(csrPem: string): Promise<CertificationRequest> {
  try {
    return await parseCsrAsync(csrPem);
  } catch (error) {
    throw asInputError(error, 'CSR refused');
  }
}
