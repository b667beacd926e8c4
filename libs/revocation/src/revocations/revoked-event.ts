import {
  CertificateRevoked,
  isRevocationReason,
  REVOCATION_REASONS,
  revocationReasonFromWire,
  SERIAL_HEX_PATTERN,
} from '@certlane/contracts';
import { canonicalSerial } from '../serials/canonical-serial';

/**
 * Checks an `issuance.v1.certificate.revoked` payload (events are not validated by the bus) and
 * returns it with a canonical serial, or the reason it cannot be stored.
 */
export function parseRevokedEvent(data: unknown): CertificateRevoked | { invalid: string } {
  if (typeof data !== 'object' || data === null) return { invalid: 'payload is not an object' };
  const event = data as Record<string, unknown>;
  const issuerId = event.issuer_id;
  if (typeof issuerId !== 'string' || issuerId.length === 0 || issuerId.length > 128)
    return { invalid: 'issuer_id must be 1 to 128 characters' };
  const serial = event.serial_hex;
  if (typeof serial !== 'string' || !SERIAL_HEX_PATTERN.test(serial))
    return { invalid: 'serial_hex must be 1 to 40 lower-case hex digits' };
  // Events published before ADR 0037 may spell caCompromise/aaCompromise the ASN.1 way.
  const reason = revocationReasonFromWire(event.reason ?? 'unspecified');
  if (!isRevocationReason(reason))
    return { invalid: `reason must be one of ${REVOCATION_REASONS.join(', ')}` };
  const revokedAt = typeof event.revoked_at === 'string' ? new Date(event.revoked_at) : undefined;
  if (!revokedAt || Number.isNaN(revokedAt.getTime())) return { invalid: 'revoked_at must be an ISO date' };
  const certificateId = event.certificate_id;
  if (certificateId !== undefined && typeof certificateId !== 'string')
    return { invalid: 'certificate_id must be a string' };
  return {
    issuer_id: issuerId,
    serial_hex: canonicalSerial(serial),
    reason,
    revoked_at: revokedAt.toISOString(),
    ...(certificateId === undefined ? {} : { certificate_id: certificateId }),
  };
}
