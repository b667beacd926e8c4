import { CERTIFICATE_STATUSES, CertificateStatus } from '@certlane/contracts';
import {
  CertificateEvent,
  nextCertificateStatus,
  releasesHold,
  skippedByBulkRenew,
  statusByValidity,
} from './certificate-status';

const outcome = (from: CertificateStatus, event: CertificateEvent): string => {
  const result = nextCertificateStatus(from, event);
  return result.ok ? result.to : `refused:${result.refusal}`;
};

/** Expected result per from-status, in CERTIFICATE_STATUSES order. */
const table = (values: string[]): Record<CertificateStatus, string> =>
  Object.fromEntries(CERTIFICATE_STATUSES.map((s, i) => [s, values[i]])) as Record<CertificateStatus, string>;

//                 Pending  Active  Expiring  Expired  RenewalInProgress  Failed  Revoked  Archived
const cases: [string, CertificateEvent, Record<CertificateStatus, string>][] = [
  [
    'renew',
    { kind: 'renew', force: false },
    table([
      'RenewalInProgress',
      'RenewalInProgress',
      'RenewalInProgress',
      'refused:certificate_not_renewable',
      'refused:renewal_in_progress',
      'RenewalInProgress',
      'RenewalInProgress',
      'refused:certificate_not_renewable',
    ]),
  ],
  [
    'renew with force',
    { kind: 'renew', force: true },
    table([
      'RenewalInProgress',
      'RenewalInProgress',
      'RenewalInProgress',
      'refused:certificate_not_renewable',
      'RenewalInProgress',
      'RenewalInProgress',
      'RenewalInProgress',
      'refused:certificate_not_renewable',
    ]),
  ],
  [
    'issued (valid)',
    { kind: 'issued', validity: 'Active' },
    table(['Active', 'Active', 'Active', 'Active', 'Active', 'Active', 'Active', 'Archived']),
  ],
  [
    'issued (inside the window)',
    { kind: 'issued', validity: 'Expiring' },
    table(['Expiring', 'Expiring', 'Expiring', 'Expiring', 'Expiring', 'Expiring', 'Expiring', 'Archived']),
  ],
  [
    'renewal failed',
    { kind: 'renewal-failed' },
    table(['Failed', 'Active', 'Expiring', 'Expired', 'Failed', 'Failed', 'Revoked', 'Archived']),
  ],
  [
    'renewal abandoned, none left open',
    { kind: 'renewal-abandoned', openRenewals: 0, fallback: 'Expiring' },
    table(['Pending', 'Active', 'Expiring', 'Expired', 'Expiring', 'Failed', 'Revoked', 'Archived']),
  ],
  [
    'renewal abandoned, a forced one still open',
    { kind: 'renewal-abandoned', openRenewals: 1, fallback: 'Active' },
    table(['Pending', 'Active', 'Expiring', 'Expired', 'RenewalInProgress', 'Failed', 'Revoked', 'Archived']),
  ],
  [
    'archive',
    { kind: 'archive' },
    table(['Archived', 'Archived', 'Archived', 'Archived', 'Archived', 'Archived', 'Archived', 'Archived']),
  ],
  [
    'revoke',
    { kind: 'revoke' },
    table(['Revoked', 'Revoked', 'Revoked', 'Revoked', 'Revoked', 'Revoked', 'Revoked', 'Revoked']),
  ],
  [
    'removeFromCRL on a held certificate, no renewal open',
    { kind: 'release-hold', revocationReason: 'certificateHold', openRenewals: 0, fallback: 'Expiring' },
    table([
      'Pending',
      'Active',
      'Expiring',
      'Expired',
      'RenewalInProgress',
      'Failed',
      'Expiring',
      'Archived',
    ]),
  ],
  [
    'removeFromCRL on a held certificate whose renewal is still open',
    { kind: 'release-hold', revocationReason: 'certificateHold', openRenewals: 1, fallback: 'Active' },
    table([
      'Pending',
      'Active',
      'Expiring',
      'Expired',
      'RenewalInProgress',
      'Failed',
      'RenewalInProgress',
      'Archived',
    ]),
  ],
  [
    'removeFromCRL on a held certificate whose dates have passed',
    { kind: 'release-hold', revocationReason: 'certificateHold', openRenewals: 0, fallback: 'Expired' },
    table(['Pending', 'Active', 'Expiring', 'Expired', 'RenewalInProgress', 'Failed', 'Expired', 'Archived']),
  ],
  [
    'removeFromCRL on a certificate never revoked',
    { kind: 'release-hold', revocationReason: null, openRenewals: 0, fallback: 'Active' },
    table(CERTIFICATE_STATUSES.map(() => 'refused:certificate_not_on_hold')),
  ],
  ...(['keyCompromise', 'unspecified', 'caCompromise', 'superseded'] as const).map(
    (reason): [string, CertificateEvent, Record<CertificateStatus, string>] => [
      `removeFromCRL on a certificate revoked for ${reason}`,
      { kind: 'release-hold', revocationReason: reason, openRenewals: 0, fallback: 'Active' },
      table(CERTIFICATE_STATUSES.map(() => 'refused:certificate_not_on_hold')),
    ],
  ),
  [
    'clock says Expiring',
    { kind: 'clock', validity: 'Expiring' },
    table([
      'Pending',
      'Expiring',
      'Expiring',
      'Expired',
      'RenewalInProgress',
      'Failed',
      'Revoked',
      'Archived',
    ]),
  ],
  [
    'clock says Expired',
    { kind: 'clock', validity: 'Expired' },
    table([
      'Pending',
      'Expired',
      'Expired',
      'Expired',
      'RenewalInProgress',
      'Expired',
      'Revoked',
      'Archived',
    ]),
  ],
  [
    'clock says Active',
    { kind: 'clock', validity: 'Active' },
    table(['Pending', 'Active', 'Active', 'Expired', 'RenewalInProgress', 'Failed', 'Revoked', 'Archived']),
  ],
];

describe('nextCertificateStatus', () => {
  for (const [name, event, expected] of cases) {
    describe(name, () => {
      it.each(CERTIFICATE_STATUSES.map((s) => [s, expected[s]]))('from %s -> %s', (from, want) => {
        expect(outcome(from as CertificateStatus, event)).toBe(want);
      });
    });
  }

  it('explains a refusal', () => {
    const result = nextCertificateStatus('Expired', { kind: 'renew', force: true });
    expect(result).toEqual({
      ok: false,
      refusal: 'certificate_not_renewable',
      message: expect.stringContaining('Expired'),
    });
  });
});

describe('releasesHold', () => {
  it('is true for removeFromCRL only: every other reason revokes', () => {
    expect(releasesHold('removeFromCRL')).toBe(true);
    for (const reason of ['certificateHold', 'keyCompromise', 'unspecified', 'aaCompromise'] as const) {
      expect(releasesHold(reason)).toBe(false);
    }
  });

  it('explains why a certificate revoked for good cannot be released', () => {
    expect(
      nextCertificateStatus('Revoked', {
        kind: 'release-hold',
        revocationReason: 'keyCompromise',
        openRenewals: 0,
        fallback: 'Active',
      }),
    ).toEqual({
      ok: false,
      refusal: 'certificate_not_on_hold',
      message: expect.stringContaining('keyCompromise'),
    });
  });
});

describe('statusByValidity', () => {
  const now = new Date('2026-01-01T00:00:00Z');
  const days = (n: number) => new Date(now.getTime() + n * 86_400_000);

  it('is Expired at and after not_after', () => {
    expect(statusByValidity(now, now, 30)).toBe('Expired');
    expect(statusByValidity(days(-1), now, 30)).toBe('Expired');
  });

  it('is Expiring inside the window, window end included', () => {
    expect(statusByValidity(days(30), now, 30)).toBe('Expiring');
    expect(statusByValidity(days(1), now, 30)).toBe('Expiring');
  });

  it('is Active beyond the window', () => {
    expect(statusByValidity(new Date(days(30).getTime() + 1), now, 30)).toBe('Active');
  });
});

describe('skippedByBulkRenew', () => {
  it.each([
    ['Archived', true],
    ['Revoked', true],
    ['Expired', true],
    ['RenewalInProgress', true],
    ['Pending', false],
    ['Active', false],
    ['Expiring', false],
    ['Failed', false],
  ] as const)('%s -> %s', (status, skipped) => {
    expect(skippedByBulkRenew(status)).toBe(skipped);
  });
});
