import { OutboundNotification } from '../notifier-connector';
import { alertIdentity } from './alert-identity';

const notification = (
  event_type: string,
  details: OutboundNotification['details'],
  certificate_id: string | null = null,
) =>
  ({
    id: 'n-1',
    event_type,
    severity: 'critical',
    title: 't',
    dedup_key: `${event_type}:k`,
    certificate_id,
    recipients: [],
    details,
    occurred_at: '2026-11-25T00:00:00.000Z',
  }) satisfies OutboundNotification;

describe('alertIdentity', () => {
  it('opens one alert per health check when it goes bad and closes it on recovery', () => {
    expect(
      alertIdentity(notification('endpoint.health_changed', { health_check_id: 'hc-1', to: 'down' })),
    ).toEqual({
      key: 'certlane/health/hc-1',
      action: 'open',
    });
    expect(
      alertIdentity(
        notification('endpoint.health_changed', { health_check_id: 'hc-1', to: 'cert_mismatch' }),
      ),
    ).toEqual({ key: 'certlane/health/hc-1', action: 'open' });
    expect(
      alertIdentity(notification('endpoint.health_changed', { health_check_id: 'hc-1', to: 'healthy' })),
    ).toEqual({ key: 'certlane/health/hc-1', action: 'close' });
  });

  it('keys certificate problems by certificate', () => {
    expect(alertIdentity(notification('certificate.renewed', {}, 'cert-1'))).toEqual({
      key: 'certlane/cert-1/expiry',
      action: 'close',
    });
    expect(alertIdentity(notification('certificate.revoked', {}, 'cert-1'))).toEqual({
      key: 'certlane/certificate.revoked:k',
      action: 'open',
    });
  });

  it('keys a CA problem by CA: every expiry threshold updates one alert, a revocation opens another', () => {
    const thirty = alertIdentity(notification('ca.expiring', { ca_id: 'ca-team', threshold_days: 30 }));
    const seven = alertIdentity(notification('ca.expiring', { ca_id: 'ca-team', threshold_days: 7 }));
    expect(thirty).toEqual({ key: 'certlane/ca/ca-team/expiry', action: 'open' });
    expect(seven).toEqual(thirty);
    expect(alertIdentity(notification('ca.revoked', { ca_id: 'ca-team' }))).toEqual({
      key: 'certlane/ca/ca-team/revoked',
      action: 'open',
    });
  });
});
