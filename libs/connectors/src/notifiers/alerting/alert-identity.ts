import { OutboundNotification } from '../notifier-connector';

/**
 * For incident tools (PagerDuty, OpsGenie): an alert per certificate and problem, opened by the
 * bad news and closed by the good news about the same problem, under one stable key.
 */
const PROBLEMS: Record<string, { problem: string; action: 'open' | 'close' }> = {
  'certificate.expiring': { problem: 'expiry', action: 'open' },
  'certificate.renewal_failed': { problem: 'expiry', action: 'open' },
  'certificate.renewed': { problem: 'expiry', action: 'close' },
  'deployment.failed': { problem: 'deployment', action: 'open' },
  'deployment.succeeded': { problem: 'deployment', action: 'close' },
};

const CA_PROBLEMS: Record<string, string> = { 'ca.expiring': 'expiry', 'ca.revoked': 'revoked' };

export function alertIdentity(notification: OutboundNotification): { key: string; action: 'open' | 'close' } {
  // An endpoint's health: one alert per health check, opened when it goes bad, closed on recovery.
  if (notification.event_type === 'endpoint.health_changed' && notification.details.health_check_id)
    return {
      key: `certlane/health/${notification.details.health_check_id}`,
      action: notification.details.to === 'healthy' ? 'close' : 'open',
    };
  // A CA's expiry and its revocation (ADR 0077): one alert per CA and problem, every threshold
  // updating the same alert.
  const caProblem = CA_PROBLEMS[notification.event_type];
  if (caProblem && notification.details.ca_id)
    return { key: `certlane/ca/${notification.details.ca_id}/${caProblem}`, action: 'open' };
  const known = PROBLEMS[notification.event_type];
  if (known && notification.certificate_id)
    return { key: `certlane/${notification.certificate_id}/${known.problem}`, action: known.action };
  return { key: `certlane/${notification.dedup_key}`, action: 'open' };
}

/** A base URL setting: https (or http for a test receiver), no query. Default when absent. */
export function baseUrl(value: unknown, fallback: string): string | { invalid: string } {
  if (value === undefined || value === null || value === '') return fallback;
  if (typeof value !== 'string' || !/^https?:\/\/[^?#]+$/.test(value))
    return { invalid: 'api_url must be an http(s) URL' };
  return value.replace(/\/+$/, '');
}
