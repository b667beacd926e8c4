import {
  CA_REVOCATION_REASONS,
  CaExpiryWarning,
  CaRevoked,
  CertificateExpiryWarning,
  CertificateRevoked,
  DISCOVERY_SOURCES,
  DiscoveredCertificateFound,
  DiscoverySource,
  HEALTH_CHECK_STATUSES,
  HealthCheckStatus,
  HealthCheckStatusChanged,
  JobStatusChanged,
} from '@certlane/contracts';

/** Bus payloads are not validated by the bus: these check what the notifier reads. */
type Parsed<T> = T | { invalid: string };

const isObject = (data: unknown): data is Record<string, unknown> =>
  typeof data === 'object' && data !== null;
const isText = (value: unknown): value is string => typeof value === 'string';
const isDate = (value: unknown): value is string => isText(value) && !Number.isNaN(Date.parse(value));

export function parseExpiryWarning(data: unknown): Parsed<CertificateExpiryWarning> {
  if (!isObject(data)) return { invalid: 'payload is not an object' };
  const { certificate_id, common_name, expires_at, threshold_days, days_remaining } = data;
  if (!isText(certificate_id) || certificate_id.length === 0) return { invalid: 'certificate_id is missing' };
  if (!isText(common_name)) return { invalid: 'common_name is missing' };
  if (!isDate(expires_at)) return { invalid: 'expires_at must be a date' };
  if (!Number.isInteger(threshold_days) || !Number.isInteger(days_remaining))
    return { invalid: 'threshold_days and days_remaining must be integers' };
  const text = (value: unknown) => (isText(value) ? value : '');
  return {
    certificate_id,
    common_name,
    environment: text(data.environment),
    owner_id: text(data.owner_id),
    team_id: text(data.team_id),
    renewal_policy_id: text(data.renewal_policy_id),
    status: text(data.status),
    expires_at,
    threshold_days: threshold_days as number,
    days_remaining: days_remaining as number,
  };
}

export function parseRevoked(data: unknown): Parsed<CertificateRevoked> {
  if (!isObject(data)) return { invalid: 'payload is not an object' };
  const { issuer_id, serial_hex, reason, revoked_at, certificate_id } = data;
  if (!isText(issuer_id) || !isText(serial_hex) || !isText(reason) || !isDate(revoked_at))
    return { invalid: 'issuer_id, serial_hex, reason and revoked_at are required' };
  return {
    issuer_id,
    serial_hex,
    reason: reason as CertificateRevoked['reason'],
    revoked_at,
    ...(isText(certificate_id) ? { certificate_id } : {}),
  };
}

export function parseCaExpiryWarning(data: unknown): Parsed<CaExpiryWarning> {
  if (!isObject(data)) return { invalid: 'payload is not an object' };
  const { ca_id, issuer_id, subject, status, issuing, root, not_after, threshold_days, days_remaining } =
    data;
  if (!isText(ca_id) || ca_id.length === 0) return { invalid: 'ca_id is missing' };
  if (!isText(subject)) return { invalid: 'subject is missing' };
  if (status !== 'active' && status !== 'retired') return { invalid: 'status must be active or retired' };
  if (!isDate(not_after)) return { invalid: 'not_after must be a date' };
  if (!Number.isInteger(threshold_days) || !Number.isInteger(days_remaining))
    return { invalid: 'threshold_days and days_remaining must be integers' };
  return {
    ca_id,
    issuer_id: isText(issuer_id) ? issuer_id : '',
    subject,
    status,
    issuing: issuing === true,
    root: root === true,
    not_after,
    threshold_days: threshold_days as number,
    days_remaining: days_remaining as number,
  };
}

export function parseCaRevoked(data: unknown): Parsed<CaRevoked> {
  if (!isObject(data)) return { invalid: 'payload is not an object' };
  const { issuer_id, ca_id, serial_hex, key_identifiers, retired_ca_ids, reason, revoked_at } = data;
  if (!isText(issuer_id) || !isText(ca_id) || !isText(serial_hex) || !isDate(revoked_at))
    return { invalid: 'issuer_id, ca_id, serial_hex and revoked_at are required' };
  if (!CA_REVOCATION_REASONS.includes(reason as CaRevoked['reason']))
    return { invalid: 'reason is not a CA revocation reason' };
  const texts = (value: unknown) => (Array.isArray(value) ? value.filter(isText) : []);
  return {
    issuer_id,
    ca_id,
    serial_hex,
    key_identifiers: texts(key_identifiers),
    retired_ca_ids: texts(retired_ca_ids),
    reason: reason as CaRevoked['reason'],
    revoked_at,
  };
}

export function parseJobStatusChanged(data: unknown): Parsed<JobStatusChanged> {
  if (!isObject(data)) return { invalid: 'payload is not an object' };
  const { job_id, type, certificate_id, from, to, error, at } = data;
  if (!isText(job_id) || !isText(type) || !isText(certificate_id) || !isText(to) || !isDate(at))
    return { invalid: 'job_id, type, certificate_id, to and at are required' };
  return {
    job_id,
    type: type as JobStatusChanged['type'],
    certificate_id,
    from: (isText(from) ? from : to) as JobStatusChanged['from'],
    to: to as JobStatusChanged['to'],
    error: isText(error) ? error : '',
    at,
  };
}

const isStatus = (value: unknown): value is HealthCheckStatus =>
  HEALTH_CHECK_STATUSES.includes(value as HealthCheckStatus);

export function parseHealthStatusChanged(data: unknown): Parsed<HealthCheckStatusChanged> {
  if (!isObject(data)) return { invalid: 'payload is not an object' };
  const { health_check_id, name, host, port, from, to, error, changed_at } = data;
  if (!isText(health_check_id) || !isText(name) || !isText(host) || !Number.isInteger(port))
    return { invalid: 'health_check_id, name, host and port are required' };
  if (!isStatus(from) || !isStatus(to)) return { invalid: 'from and to must be health check statuses' };
  if (!isDate(changed_at)) return { invalid: 'changed_at must be a date' };
  return {
    health_check_id,
    name,
    host,
    port: port as number,
    from,
    to,
    error: isText(error) ? error : null,
    changed_at,
  };
}

export function parseDiscoveryFound(data: unknown): Parsed<DiscoveredCertificateFound> {
  if (!isObject(data)) return { invalid: 'payload is not an object' };
  const { fingerprint, subject, issuer, not_before, not_after, location, source, scan_id, found_at } = data;
  if (!isText(fingerprint) || !/^[0-9a-f]{64}$/.test(fingerprint))
    return { invalid: 'fingerprint must be a SHA-256 fingerprint' };
  if (!isText(location) || location.length === 0) return { invalid: 'location is missing' };
  if (!DISCOVERY_SOURCES.includes(source as DiscoverySource))
    return { invalid: 'source must be a discovery source' };
  if (!isDate(not_before) || !isDate(not_after) || !isDate(found_at))
    return { invalid: 'not_before, not_after and found_at must be dates' };
  return {
    fingerprint,
    subject: isText(subject) ? subject : '',
    issuer: isText(issuer) ? issuer : '',
    not_before,
    not_after,
    location,
    source: source as DiscoverySource,
    scan_id: isText(scan_id) ? scan_id : null,
    found_at,
  };
}
