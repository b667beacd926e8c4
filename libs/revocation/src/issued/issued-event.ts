import { CA_ID_PATTERN, CertificateIssued, SERIAL_HEX_PATTERN } from '@certlane/contracts';
import { canonicalSerial } from '../serials/canonical-serial';

const isoDate = (value: unknown): string | undefined => {
  if (typeof value !== 'string') return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
};

/**
 * Checks an `issuance.v1.certificate.issued` payload (events are not validated by the bus) and
 * returns it with a canonical serial and ISO times, or the reason it cannot be stored.
 */
export function parseIssuedEvent(data: unknown): CertificateIssued | { invalid: string } {
  if (typeof data !== 'object' || data === null) return { invalid: 'payload is not an object' };
  const event = data as Record<string, unknown>;
  const issuerId = event.issuer_id;
  if (typeof issuerId !== 'string' || issuerId.length === 0 || issuerId.length > 128)
    return { invalid: 'issuer_id must be 1 to 128 characters' };
  if (typeof event.ca_id !== 'string' || !CA_ID_PATTERN.test(event.ca_id))
    return { invalid: 'ca_id must be a CA id' };
  const serial = event.serial_hex;
  if (typeof serial !== 'string' || !SERIAL_HEX_PATTERN.test(serial))
    return { invalid: 'serial_hex must be 1 to 40 lower-case hex digits' };
  if (typeof event.fingerprint_sha256 !== 'string' || !/^[0-9a-fA-F:]{64,95}$/.test(event.fingerprint_sha256))
    return { invalid: 'fingerprint_sha256 must be a SHA-256 fingerprint' };
  const notBefore = isoDate(event.not_before);
  const notAfter = isoDate(event.not_after);
  const issuedAt = isoDate(event.issued_at);
  if (!notBefore || !notAfter || !issuedAt)
    return { invalid: 'not_before, not_after and issued_at must be ISO dates' };
  return {
    issuer_id: issuerId,
    ca_id: event.ca_id,
    serial_hex: canonicalSerial(serial),
    not_before: notBefore,
    not_after: notAfter,
    fingerprint_sha256: event.fingerprint_sha256,
    issued_at: issuedAt,
  };
}

/**
 * Whether an `issuance.v1.certificate.issued` payload names no CA (`ca_id` ''): a certificate of a
 * remote CA (a script issuer's, ADR 0082), whose own CA answers for its status, not this service.
 */
export function isRemoteCaIssued(data: unknown): boolean {
  return typeof data === 'object' && data !== null && (data as Record<string, unknown>).ca_id === '';
}
