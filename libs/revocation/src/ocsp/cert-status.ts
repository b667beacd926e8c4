import { CertStatus, parseRevocationReason } from '@certlane/pki';
import { RevocationReason } from '@certlane/contracts';

/** What the revocation service knows about one serial. */
export interface KnownRevocation {
  reason: RevocationReason;
  revoked_at: Date;
}

/**
 * Could the issuer have issued this serial? The local CA draws every serial as 17 random octets
 * whose first two bits are `01` (libs/pki serial.ts), so anything else cannot be one of its
 * certificates (and needs no lookup). Other kinds: no format is known, so every serial is plausible.
 */
export function plausibleSerial(kind: string, canonicalSerialHex: string): boolean {
  if (kind !== 'local_ca') return true;
  return /^[4-7][0-9a-f]{33}$/.test(canonicalSerialHex);
}

/**
 * Whether the CA a CertID names issued the serial: `true`, `false` (never issued, or issued by
 * another CA of the issuer), or `undefined` when this kind of issuer tells nothing about issuance.
 */
export type IssuedByCa = boolean | undefined;

/**
 * The OCSP status of a serial (ADR 0021, ADR 0023): `revoked` with its time and reason when a
 * revocation is recorded (removeFromCRL means no longer revoked); `good` for a certificate the CA
 * issued (for issuers that report no issuance, a serial they could have issued); `unknown`
 * otherwise. `unspecified` is sent without a reason, as in the CRL.
 */
export function certStatusFor(
  kind: string,
  canonicalSerialHex: string,
  revocation: KnownRevocation | undefined,
  issuedByCa: IssuedByCa,
): CertStatus {
  if (revocation && revocation.reason !== 'removeFromCRL') {
    return revocation.reason === 'unspecified'
      ? { status: 'revoked', revokedAt: revocation.revoked_at }
      : {
          status: 'revoked',
          revokedAt: revocation.revoked_at,
          reason: parseRevocationReason(revocation.reason),
        };
  }
  if (!plausibleSerial(kind, canonicalSerialHex)) return { status: 'unknown' };
  if (issuedByCa === undefined) return { status: 'good' };
  return issuedByCa ? { status: 'good' } : { status: 'unknown' };
}
