import { CertlaneError, ErrorCode } from '@certlane/contracts';
import { parseCertificate } from '@certlane/pki';

/** What finds a renewed certificate's version in the inventory: its serial and its SHA-256. */
export interface RenewedCertificate {
  serialNumber: string;
  fingerprintSha256: string;
}

/**
 * `renews_certificate_pem` of an enrollment (EST simplereenroll, SCEP RenewalReq), read before
 * anything is signed: 400 validation_failed when it is not a certificate.
 */
export function renewedCertificate(pem: string): RenewedCertificate {
  try {
    const { serialNumber, fingerprintSha256 } = parseCertificate(pem);
    return { serialNumber, fingerprintSha256 };
  } catch (error) {
    throw new CertlaneError(
      ErrorCode.ValidationFailed,
      `renews_certificate_pem is not a certificate: ${(error as Error).message}`,
      { field: 'renews_certificate_pem' },
    );
  }
}
