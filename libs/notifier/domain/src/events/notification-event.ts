import {
  CaExpiryWarning,
  CaRevoked,
  CertificateExpiryWarning,
  CertificateRevoked,
  DiscoveredCertificateFound,
  HealthCheckStatusChanged,
  JobStatusChanged,
} from '@certlane/contracts';

/**
 * The notification event types (spec 6.2 leaves the names to us; docs/notifications.md lists
 * them). Policy events are named now so rules can already select them.
 */
export const NOTIFICATION_EVENT_TYPES = [
  'certificate.expiring',
  'certificate.renewed',
  'certificate.renewal_failed',
  'certificate.revoked',
  'deployment.succeeded',
  'deployment.failed',
  'policy.violated',
  'endpoint.health_changed',
  'discovery.found',
  'ca.expiring',
  'ca.revoked',
  'digest.daily',
] as const;
export type NotificationEventType = (typeof NOTIFICATION_EVENT_TYPES)[number];

export const SEVERITIES = ['info', 'warning', 'critical'] as const;
export type Severity = (typeof SEVERITIES)[number];

export const severityRank = (severity: Severity): number => SEVERITIES.indexOf(severity);

/**
 * One thing worth telling someone about, before routing. `dedup_key` names the fact (not the
 * message that carried it), so a redelivered or repeated bus event yields the same key.
 */
export interface NotificationEvent {
  type: NotificationEventType;
  severity: Severity;
  dedup_key: string;
  certificate_id: string | null;
  /** Routing attributes; null when the source event does not carry them. */
  owner_id: string | null;
  team_id: string | null;
  environment: string | null;
  issuer_id: string | null;
  title: string;
  details: Record<string, string | number | null>;
  occurred_at: string;
  /** A prepared message (the digest's): email sends it as is, to the event's contacts only. */
  body?: { subject: string; text: string; html: string };
}

/** Severity of an expiry warning by days left: a week or less is critical, two weeks a warning. */
export function expirySeverity(daysRemaining: number): Severity {
  if (daysRemaining <= 7) return 'critical';
  if (daysRemaining <= 14) return 'warning';
  return 'info';
}

/**
 * `issuance.v1.certificate.expiry-warning` -> certificate.expiring. The key is certificate,
 * expiry date (one per certificate version) and threshold: each threshold once per version.
 */
export function fromExpiryWarning(event: CertificateExpiryWarning, receivedAt: Date): NotificationEvent {
  const expiresAt = new Date(event.expires_at).toISOString();
  return {
    type: 'certificate.expiring',
    severity: expirySeverity(event.days_remaining),
    dedup_key: `certificate.expiring:${event.certificate_id}:${expiresAt}:${event.threshold_days}`,
    certificate_id: event.certificate_id,
    owner_id: event.owner_id || null,
    team_id: event.team_id || null,
    environment: event.environment || null,
    issuer_id: null,
    title:
      event.days_remaining <= 0
        ? `${event.common_name} expires today`
        : `${event.common_name} expires in ${event.days_remaining} days`,
    details: {
      common_name: event.common_name,
      expires_at: expiresAt,
      threshold_days: event.threshold_days,
      days_remaining: event.days_remaining,
    },
    occurred_at: receivedAt.toISOString(),
  };
}

/** `issuance.v1.certificate.revoked` -> certificate.revoked (a hold release is not news). */
export function fromRevocation(event: CertificateRevoked): NotificationEvent | null {
  if (event.reason === 'removeFromCRL') return null;
  return {
    type: 'certificate.revoked',
    severity: 'warning',
    dedup_key: `certificate.revoked:${event.issuer_id}:${event.serial_hex}`,
    certificate_id: event.certificate_id ?? null,
    owner_id: null,
    team_id: null,
    environment: null,
    issuer_id: event.issuer_id,
    title: `Certificate ${event.serial_hex} was revoked (${event.reason})`,
    details: { serial_hex: event.serial_hex, reason: event.reason },
    occurred_at: event.revoked_at,
  };
}

/**
 * Severity of a CA's expiry warning by days left (ADR 0077): a month or less is critical (what
 * the CA signed stops validating with it, so its replacement must be in place and used), three
 * months a warning.
 */
export function caExpirySeverity(daysRemaining: number): Severity {
  if (daysRemaining <= 30) return 'critical';
  if (daysRemaining <= 90) return 'warning';
  return 'info';
}

/**
 * `issuance.v1.ca.expiry-warning` -> ca.expiring (ADR 0077), routed by the CA's issuer. The key is
 * the CA, its end and the threshold: each threshold once per CA certificate.
 */
export function fromCaExpiryWarning(event: CaExpiryWarning, receivedAt: Date): NotificationEvent {
  const notAfter = new Date(event.not_after).toISOString();
  const role = event.root ? 'Root CA' : event.issuing ? 'Issuing CA' : 'CA';
  const retired = event.status === 'retired' ? ' (retired: what it signed stops validating)' : '';
  return {
    type: 'ca.expiring',
    severity: caExpirySeverity(event.days_remaining),
    dedup_key: `ca.expiring:${event.ca_id}:${notAfter}:${event.threshold_days}`,
    certificate_id: null,
    owner_id: null,
    team_id: null,
    environment: null,
    issuer_id: event.issuer_id || null,
    title:
      event.days_remaining <= 0
        ? `${role} ${event.subject} has expired${retired}`
        : `${role} ${event.subject} expires in ${event.days_remaining} days${retired}`,
    details: {
      ca_id: event.ca_id,
      subject: event.subject,
      status: event.status,
      issuing: event.issuing ? 'yes' : 'no',
      not_after: notAfter,
      threshold_days: event.threshold_days,
      days_remaining: event.days_remaining,
    },
    occurred_at: receivedAt.toISOString(),
  };
}

/**
 * `issuance.v1.ca.revoked` -> ca.revoked (ADR 0077): always critical, everything the CA and the CAs
 * below it signed no longer validates. One per CA.
 */
export function fromCaRevoked(event: CaRevoked): NotificationEvent {
  return {
    type: 'ca.revoked',
    severity: 'critical',
    dedup_key: `ca.revoked:${event.ca_id}`,
    certificate_id: null,
    owner_id: null,
    team_id: null,
    environment: null,
    issuer_id: event.issuer_id,
    title: `CA ${event.ca_id} was revoked (${event.reason}); renew what it signed`,
    details: {
      ca_id: event.ca_id,
      serial_hex: event.serial_hex,
      reason: event.reason,
      retired_ca_ids: event.retired_ca_ids.join(', ') || null,
      certificates: `/api/v1/certificates?ca_id=${event.ca_id}`,
    },
    occurred_at: event.revoked_at,
  };
}

const JOB_OUTCOMES: Partial<
  Record<string, { type: NotificationEventType; severity: Severity; verb: string }>
> = {
  'Renewal:Completed': { type: 'certificate.renewed', severity: 'info', verb: 'was renewed' },
  'Renewal:Failed': { type: 'certificate.renewal_failed', severity: 'critical', verb: 'failed to renew' },
  'Issuance:Failed': { type: 'certificate.renewal_failed', severity: 'critical', verb: 'failed to issue' },
  'Deployment:Completed': { type: 'deployment.succeeded', severity: 'info', verb: 'was deployed' },
  'Deployment:Failed': { type: 'deployment.failed', severity: 'critical', verb: 'failed to deploy' },
};

/**
 * `issuance.v1.job.status-changed` -> renewal and deployment outcomes; other job moves are not
 * notifications. The key is the job and the time of the move: a redelivered bus message maps to
 * the same key, while a job the renewal loop retries and that fails again is a new failure.
 */
export function fromJobStatusChange(event: JobStatusChanged): NotificationEvent | null {
  const outcome = JOB_OUTCOMES[`${event.type}:${event.to}`];
  if (!outcome) return null;
  return {
    type: outcome.type,
    severity: outcome.severity,
    dedup_key: `${outcome.type}:${event.job_id}:${event.at}`,
    certificate_id: event.certificate_id,
    owner_id: null,
    team_id: null,
    environment: null,
    issuer_id: null,
    title: `Certificate ${event.certificate_id} ${outcome.verb}`,
    details: { job_id: event.job_id, job_type: event.type, error: event.error || null },
    occurred_at: event.at,
  };
}

const HEALTH_NEWS: Record<HealthCheckStatusChanged['to'], { severity: Severity; words: string }> = {
  healthy: { severity: 'info', words: 'is healthy again' },
  degraded: { severity: 'warning', words: 'is degraded' },
  down: { severity: 'critical', words: 'is down' },
  cert_mismatch: { severity: 'critical', words: 'serves an unexpected certificate' },
};

/**
 * `health-monitor.v1.health-check.status-changed` -> endpoint.health_changed: severity by the new
 * status (down and cert_mismatch critical, degraded warning, recovery info). The key is the check
 * and the time of the change: a redelivery maps to the same key, a later flap is news again.
 */
export function fromHealthStatusChange(event: HealthCheckStatusChanged): NotificationEvent {
  const news = HEALTH_NEWS[event.to];
  return {
    type: 'endpoint.health_changed',
    severity: news.severity,
    dedup_key: `endpoint.health_changed:${event.health_check_id}:${event.changed_at}`,
    certificate_id: null,
    owner_id: null,
    team_id: null,
    environment: null,
    issuer_id: null,
    title: `${event.name} (${event.host}:${event.port}) ${news.words}`,
    details: {
      health_check_id: event.health_check_id,
      host: event.host,
      port: event.port,
      from: event.from,
      to: event.to,
      error: event.error,
    },
    occurred_at: event.changed_at,
  };
}

const DAY_MS = 86_400_000;

/**
 * `health-monitor.v1.discovered-certificate.found` -> discovery.found: a certificate nobody manages
 * yet, found for the first time. Severity by how long it had left when found (expirySeverity: an
 * expired or nearly expired one is critical). The key is the fingerprint: one notification per
 * certificate however often or wherever it is found again.
 */
export function fromDiscoveryFound(event: DiscoveredCertificateFound): NotificationEvent {
  const daysRemaining = Math.floor((Date.parse(event.not_after) - Date.parse(event.found_at)) / DAY_MS);
  const name = event.subject || event.fingerprint;
  return {
    type: 'discovery.found',
    severity: expirySeverity(daysRemaining),
    dedup_key: `discovery.found:${event.fingerprint}`,
    certificate_id: null,
    owner_id: null,
    team_id: null,
    environment: null,
    issuer_id: null,
    title: `New certificate discovered: ${name} at ${event.location}`,
    details: {
      fingerprint: event.fingerprint,
      subject: event.subject,
      issuer: event.issuer,
      not_after: event.not_after,
      days_remaining: daysRemaining,
      location: event.location,
      source: event.source,
      scan_id: event.scan_id,
    },
    occurred_at: event.found_at,
  };
}

/** What routing needs to know about an event's certificate (issuance's certificate record). */
export interface CertificateAttributes {
  common_name: string;
  owner_id: string;
  team_id: string;
  environment: string;
  issuer_id: string;
}

/**
 * Revocation and job events name a certificate but not its owner, team, environment or issuer;
 * the consumer looks the certificate up. Expiry warnings carry them already (an empty one there
 * means the certificate has none), and an event without a certificate has nothing to look up.
 */
export const needsCertificateLookup = (event: NotificationEvent): boolean =>
  event.certificate_id !== null && event.type !== 'certificate.expiring';

/**
 * The event with the certificate's routing attributes where the event lacks them (what the
 * event itself says wins: a revocation's issuer is the one that revoked). Empty values stay null.
 */
export function withCertificateAttributes(
  event: NotificationEvent,
  certificate: CertificateAttributes,
): NotificationEvent {
  return {
    ...event,
    owner_id: event.owner_id ?? (certificate.owner_id || null),
    team_id: event.team_id ?? (certificate.team_id || null),
    environment: event.environment ?? (certificate.environment || null),
    issuer_id: event.issuer_id ?? (certificate.issuer_id || null),
    details: { ...event.details, common_name: certificate.common_name },
  };
}
