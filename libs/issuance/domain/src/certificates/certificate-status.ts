import { CertificateStatus, RevocationReason } from '@certlane/contracts';

const DAY_MS = 86_400_000;

/** What a certificate's dates alone say: Expired at not_after, Expiring inside the window. */
export function statusByValidity(notAfter: Date, now: Date, expiringWithinDays: number): CertificateStatus {
  const left = notAfter.getTime() - now.getTime();
  if (left <= 0) return 'Expired';
  return left <= expiringWithinDays * DAY_MS ? 'Expiring' : 'Active';
}

/** Everything that can happen to a managed certificate (spec section 3; ADR 0024). */
export type CertificateEvent =
  | { kind: 'renew'; force: boolean }
  /** A new version was stored; `validity` is statusByValidity of that version. */
  | { kind: 'issued'; validity: CertificateStatus }
  /** A renewal or issuance job failed for good. */
  | { kind: 'renewal-failed' }
  /** A renewal or issuance job was cancelled or rejected; `fallback` is what the dates say. */
  | { kind: 'renewal-abandoned'; openRenewals: number; fallback: CertificateStatus }
  | { kind: 'archive' }
  | { kind: 'revoke' }
  /**
   * removeFromCRL (RFC 5280 5.3.1, ADR 0037): releases a certificateHold. `revocationReason` is the
   * certificate's recorded revocation reason (null when not revoked); `openRenewals` and `fallback`
   * as for renewal-abandoned, to say where a held certificate goes back to.
   */
  | {
      kind: 'release-hold';
      revocationReason: RevocationReason | null;
      openRenewals: number;
      fallback: CertificateStatus;
    }
  /** The expiry loop re-reading the dates of the current version. */
  | { kind: 'clock'; validity: CertificateStatus };

export type Refusal = 'certificate_not_renewable' | 'renewal_in_progress' | 'certificate_not_on_hold';

export type Transition =
  { ok: true; to: CertificateStatus } | { ok: false; refusal: Refusal; message: string };

const to = (status: CertificateStatus): Transition => ({ ok: true, to: status });

/** Statuses the expiry loop may move, and only by the dates. */
const DATE_DRIVEN: ReadonlySet<CertificateStatus> = new Set(['Active', 'Expiring']);

/** The certificate state machine: pure, total over every (status, event) pair. */
export function nextCertificateStatus(from: CertificateStatus, event: CertificateEvent): Transition {
  switch (event.kind) {
    case 'renew':
      if (from === 'Archived' || from === 'Expired') {
        return {
          ok: false,
          refusal: 'certificate_not_renewable',
          message: `a certificate in status ${from} cannot be renewed, with or without force`,
        };
      }
      if (from === 'RenewalInProgress' && !event.force) {
        return {
          ok: false,
          refusal: 'renewal_in_progress',
          message: 'a renewal is already in progress; pass force to start another',
        };
      }
      return to('RenewalInProgress');
    case 'issued':
      return to(from === 'Archived' ? 'Archived' : event.validity);
    case 'renewal-failed':
      return to(from === 'RenewalInProgress' || from === 'Pending' ? 'Failed' : from);
    case 'renewal-abandoned':
      return to(from === 'RenewalInProgress' && event.openRenewals === 0 ? event.fallback : from);
    case 'archive':
      return to('Archived');
    case 'revoke':
      return to('Revoked');
    case 'release-hold':
      if (event.revocationReason !== 'certificateHold') {
        return {
          ok: false,
          refusal: 'certificate_not_on_hold',
          message:
            event.revocationReason === null
              ? 'removeFromCRL releases a certificateHold; this certificate is not revoked'
              : `removeFromCRL releases a certificateHold; this certificate is revoked for ${event.revocationReason}, which is final`,
        };
      }
      // A hold is not a revocation (RFC 5280 5.3.1): the certificate goes back to what it would be
      // without it. A status the hold did not set (renewed or archived since) stays.
      if (from !== 'Revoked') return to(from);
      return to(event.openRenewals > 0 ? 'RenewalInProgress' : event.fallback);
    case 'clock':
      if (DATE_DRIVEN.has(from)) return to(event.validity);
      return to(from === 'Failed' && event.validity === 'Expired' ? 'Expired' : from);
  }
}

/**
 * A "revocation" with reason removeFromCRL revokes nothing: it releases a certificateHold (RFC 5280
 * 5.3.1), the machine's `release-hold` event.
 */
export function releasesHold(reason: RevocationReason): boolean {
  return reason === 'removeFromCRL';
}

/** Bulk renew silently skips these (spec section 3). */
const BULK_RENEW_SKIPPED: ReadonlySet<CertificateStatus> = new Set([
  'Archived',
  'Revoked',
  'Expired',
  'RenewalInProgress',
]);

export function skippedByBulkRenew(status: CertificateStatus): boolean {
  return BULK_RENEW_SKIPPED.has(status);
}
