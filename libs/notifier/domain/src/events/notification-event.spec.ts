import {
  caExpirySeverity,
  expirySeverity,
  fromCaExpiryWarning,
  fromCaRevoked,
  fromExpiryWarning,
  fromDiscoveryFound,
  fromHealthStatusChange,
  fromJobStatusChange,
  fromRevocation,
  needsCertificateLookup,
  withCertificateAttributes,
} from './notification-event';

const warning = {
  certificate_id: 'cert-1',
  common_name: 'api.example.com',
  environment: 'production',
  owner_id: 'alice',
  team_id: '',
  renewal_policy_id: 'rp-default',
  status: 'Expiring',
  expires_at: '2026-12-08T00:00:00Z',
  threshold_days: 14,
  days_remaining: 13,
};

describe('fromExpiryWarning', () => {
  it('keys each threshold once per certificate version (expiry date)', () => {
    const a = fromExpiryWarning(warning, new Date('2026-11-24T00:00:00Z'));
    const again = fromExpiryWarning(warning, new Date('2026-11-25T00:00:00Z'));
    const nextThreshold = fromExpiryWarning({ ...warning, threshold_days: 7 }, new Date());
    const renewed = fromExpiryWarning({ ...warning, expires_at: '2027-02-08T00:00:00Z' }, new Date());
    expect(again.dedup_key).toBe(a.dedup_key);
    expect(new Set([a.dedup_key, nextThreshold.dedup_key, renewed.dedup_key]).size).toBe(3);
  });

  it('carries routing attributes, an empty team as null', () => {
    const event = fromExpiryWarning(warning, new Date());
    expect(event).toMatchObject({
      type: 'certificate.expiring',
      severity: 'warning',
      owner_id: 'alice',
      team_id: null,
      environment: 'production',
      title: 'api.example.com expires in 13 days',
    });
  });

  it('says "today" at the last threshold', () => {
    expect(fromExpiryWarning({ ...warning, threshold_days: 0, days_remaining: 0 }, new Date()).title).toBe(
      'api.example.com expires today',
    );
  });
});

describe('expirySeverity', () => {
  it('is critical within a week, a warning within two, info before', () => {
    expect([0, 7, 8, 14, 15, 30].map(expirySeverity)).toEqual([
      'critical',
      'critical',
      'warning',
      'warning',
      'info',
      'info',
    ]);
  });
});

describe('fromRevocation', () => {
  const revoked = {
    issuer_id: 'iss-local',
    serial_hex: '0a1b',
    reason: 'keyCompromise' as const,
    revoked_at: '2026-11-24T10:00:00.000Z',
    certificate_id: 'cert-1',
  };

  it('maps a revocation to certificate.revoked keyed by issuer and serial', () => {
    expect(fromRevocation(revoked)).toMatchObject({
      type: 'certificate.revoked',
      dedup_key: 'certificate.revoked:iss-local:0a1b',
      issuer_id: 'iss-local',
      certificate_id: 'cert-1',
    });
  });

  it('ignores the release of a hold', () => {
    expect(fromRevocation({ ...revoked, reason: 'removeFromCRL' })).toBeNull();
  });
});

describe('fromJobStatusChange', () => {
  const change = {
    job_id: 'job-1',
    type: 'Renewal' as const,
    certificate_id: 'cert-1',
    from: 'Running' as const,
    to: 'Failed' as const,
    error: 'issuer unreachable',
    at: '2026-11-24T10:00:00.000Z',
  };

  it.each([
    ['Renewal', 'Completed', 'certificate.renewed'],
    ['Renewal', 'Failed', 'certificate.renewal_failed'],
    ['Issuance', 'Failed', 'certificate.renewal_failed'],
    ['Deployment', 'Completed', 'deployment.succeeded'],
    ['Deployment', 'Failed', 'deployment.failed'],
  ] as const)('%s job -> %s is %s', (type, to, expected) => {
    expect(fromJobStatusChange({ ...change, type, to })?.type).toBe(expected);
  });

  it('ignores other job moves', () => {
    expect(fromJobStatusChange({ ...change, to: 'Running' })).toBeNull();
    expect(fromJobStatusChange({ ...change, type: 'Validation', to: 'Failed' })).toBeNull();
    expect(fromJobStatusChange({ ...change, to: 'Cancelled' })).toBeNull();
  });

  it('a failure carries the job error', () => {
    expect(fromJobStatusChange(change)?.details.error).toBe('issuer unreachable');
  });
});

describe('certificate attributes for revocation and job events', () => {
  const certificate = {
    common_name: 'api.example.com',
    owner_id: 'alice',
    team_id: 'payments',
    environment: 'production',
    issuer_id: 'local-ca',
  };
  const failed = fromJobStatusChange({
    job_id: 'job-1',
    type: 'Renewal',
    certificate_id: 'cert-1',
    from: 'Running',
    to: 'Failed',
    error: 'boom',
    at: '2026-11-24T00:00:00.000Z',
  })!;

  it('fills owner, team, environment and issuer of a job outcome from its certificate', () => {
    expect(needsCertificateLookup(failed)).toBe(true);
    expect(withCertificateAttributes(failed, certificate)).toMatchObject({
      owner_id: 'alice',
      team_id: 'payments',
      environment: 'production',
      issuer_id: 'local-ca',
      dedup_key: failed.dedup_key,
      details: { job_id: 'job-1', common_name: 'api.example.com' },
    });
  });

  it('keeps what the event says: a revocation’s own issuer wins', () => {
    const revoked = fromRevocation({
      issuer_id: 'old-ca',
      serial_hex: '0a',
      reason: 'keyCompromise',
      revoked_at: '2026-11-24T00:00:00.000Z',
      certificate_id: 'cert-1',
    })!;
    expect(withCertificateAttributes(revoked, certificate)).toMatchObject({
      issuer_id: 'old-ca',
      owner_id: 'alice',
    });
  });

  it('leaves an attribute the certificate does not have null', () => {
    const lone = withCertificateAttributes(failed, { ...certificate, owner_id: '', team_id: '' });
    expect(lone).toMatchObject({ owner_id: null, team_id: null, environment: 'production' });
  });

  it('does not look up an expiry warning (it carries them) or an event without a certificate', () => {
    const revokedUnmanaged = fromRevocation({
      issuer_id: 'ca',
      serial_hex: '0b',
      reason: 'superseded',
      revoked_at: '2026-11-24T00:00:00.000Z',
    })!;
    expect(needsCertificateLookup(revokedUnmanaged)).toBe(false);
    const expiring = fromExpiryWarning(
      {
        certificate_id: 'cert-1',
        common_name: 'api.example.com',
        environment: '',
        owner_id: '',
        team_id: '',
        renewal_policy_id: 'rp-default',
        status: 'Expiring',
        expires_at: '2026-12-08T00:00:00.000Z',
        threshold_days: 14,
        days_remaining: 13,
      },
      new Date('2026-11-24T00:00:00.000Z'),
    );
    expect(needsCertificateLookup(expiring)).toBe(false);
  });
});

describe('fromHealthStatusChange', () => {
  const change = (from: 'healthy' | 'degraded' | 'down' | 'cert_mismatch', to: typeof from) => ({
    health_check_id: 'hc-1',
    name: 'Shop',
    host: 'shop.example.com',
    port: 443,
    from,
    to,
    error: to === 'healthy' ? null : 'connect ECONNREFUSED',
    changed_at: '2026-11-25T00:00:00.000Z',
  });

  it.each([
    ['down', 'critical', 'Shop (shop.example.com:443) is down'],
    ['cert_mismatch', 'critical', 'Shop (shop.example.com:443) serves an unexpected certificate'],
    ['degraded', 'warning', 'Shop (shop.example.com:443) is degraded'],
    ['healthy', 'info', 'Shop (shop.example.com:443) is healthy again'],
  ] as const)('-> %s is %s news', (to, severity, title) => {
    const event = fromHealthStatusChange(change(to === 'healthy' ? 'down' : 'healthy', to));
    expect(event).toMatchObject({ type: 'endpoint.health_changed', severity, title, certificate_id: null });
    expect(event.details).toMatchObject({ health_check_id: 'hc-1', to });
  });

  it('is keyed by check and time of change: a redelivery is the same fact', () => {
    expect(fromHealthStatusChange(change('healthy', 'down')).dedup_key).toBe(
      'endpoint.health_changed:hc-1:2026-11-25T00:00:00.000Z',
    );
  });
});

describe('fromDiscoveryFound', () => {
  const found = (notAfter: string, location = 'network:10.0.0.5:443') => ({
    fingerprint: 'ab'.repeat(32),
    subject: 'CN=shop.internal',
    issuer: 'CN=Some CA',
    not_before: '2026-01-01T00:00:00.000Z',
    not_after: notAfter,
    location,
    source: 'network' as const,
    scan_id: 'scan-1',
    found_at: '2026-11-25T00:00:00.000Z',
  });

  it.each([
    ['2026-11-20T00:00:00.000Z', 'critical', -5],
    ['2026-11-30T00:00:00.000Z', 'critical', 5],
    ['2026-12-06T00:00:00.000Z', 'warning', 11],
    ['2027-06-01T00:00:00.000Z', 'info', 188],
  ] as const)('a certificate expiring %s is %s news', (notAfter, severity, days) => {
    const event = fromDiscoveryFound(found(notAfter));
    expect(event).toMatchObject({
      type: 'discovery.found',
      severity,
      certificate_id: null,
      owner_id: null,
      team_id: null,
      title: 'New certificate discovered: CN=shop.internal at network:10.0.0.5:443',
      occurred_at: '2026-11-25T00:00:00.000Z',
    });
    expect(event.details).toMatchObject({
      fingerprint: 'ab'.repeat(32),
      days_remaining: days,
      source: 'network',
    });
  });

  it('is keyed by fingerprint: found again elsewhere is the same fact', () => {
    const a = fromDiscoveryFound(found('2027-06-01T00:00:00.000Z'));
    const elsewhere = fromDiscoveryFound(found('2027-06-01T00:00:00.000Z', 'agent:agt-1:/etc/ssl/a.pem'));
    expect(a.dedup_key).toBe(`discovery.found:${'ab'.repeat(32)}`);
    expect(elsewhere.dedup_key).toBe(a.dedup_key);
  });

  it('names the certificate by fingerprint when it has no subject', () => {
    expect(fromDiscoveryFound({ ...found('2027-06-01T00:00:00.000Z'), subject: '' }).title).toBe(
      `New certificate discovered: ${'ab'.repeat(32)} at network:10.0.0.5:443`,
    );
  });
});

describe('CA notifications (ADR 0077)', () => {
  const caWarning = {
    ca_id: 'ca-team',
    issuer_id: 'iss-local',
    subject: 'CN=Team CA',
    status: 'active' as const,
    issuing: true,
    root: false,
    not_after: '2026-12-20T00:00:00Z',
    threshold_days: 30,
    days_remaining: 19,
  };
  const at = new Date('2026-12-01T00:00:00Z');

  it('is critical within a month, a warning within three, info before', () => {
    expect([1, 30, 31, 90, 91, 180].map(caExpirySeverity)).toEqual([
      'critical',
      'critical',
      'warning',
      'warning',
      'info',
      'info',
    ]);
  });

  it('keys a CA expiry warning by CA, end and threshold, routed by its issuer, with no certificate', () => {
    const event = fromCaExpiryWarning(caWarning, at);
    expect(event).toMatchObject({
      type: 'ca.expiring',
      severity: 'critical',
      dedup_key: 'ca.expiring:ca-team:2026-12-20T00:00:00.000Z:30',
      certificate_id: null,
      owner_id: null,
      issuer_id: 'iss-local',
      title: 'Issuing CA CN=Team CA expires in 19 days',
      details: { ca_id: 'ca-team', issuing: 'yes', threshold_days: 30, days_remaining: 19 },
      occurred_at: at.toISOString(),
    });
    expect(needsCertificateLookup(event)).toBe(false);
  });

  it('names a root, a retired CA and an expired one as such', () => {
    expect(fromCaExpiryWarning({ ...caWarning, root: true, issuing: false }, at).title).toBe(
      'Root CA CN=Team CA expires in 19 days',
    );
    expect(fromCaExpiryWarning({ ...caWarning, status: 'retired', issuing: false }, at).title).toBe(
      'CA CN=Team CA expires in 19 days (retired: what it signed stops validating)',
    );
    expect(fromCaExpiryWarning({ ...caWarning, days_remaining: -2 }, at).title).toBe(
      'Issuing CA CN=Team CA has expired',
    );
  });

  it('maps a CA revocation to one critical ca.revoked naming the CAs retired with it', () => {
    const event = fromCaRevoked({
      issuer_id: 'iss-local',
      ca_id: 'ca-team',
      serial_hex: '0abc',
      key_identifiers: ['aa', 'bb'],
      retired_ca_ids: ['ca-dept'],
      reason: 'keyCompromise',
      revoked_at: '2026-12-01T10:00:00.000Z',
    });
    expect(event).toMatchObject({
      type: 'ca.revoked',
      severity: 'critical',
      dedup_key: 'ca.revoked:ca-team',
      issuer_id: 'iss-local',
      details: { retired_ca_ids: 'ca-dept', certificates: '/api/v1/certificates?ca_id=ca-team' },
      occurred_at: '2026-12-01T10:00:00.000Z',
    });
  });
});
