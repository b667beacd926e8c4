/**
 * The JSON of a list page written straight from text columns (certificateListTextPageQuery),
 * byte for byte what `JSON.stringify(rows.map(certificateDto))` wrote from parsed rows: same field
 * names and order, same escapes, `null` for none. Skipping the `Date`, array and object building
 * of the DTO path roughly halves the service's CPU per page (ADR 0034). Pure.
 */
export interface CertificateTextRow {
  id: string;
  name: string;
  common_name: string;
  /** A compact JSON array (array_to_json). */
  sans: string;
  environment: string;
  owner_id: string;
  team_id: string;
  issuer_id: string;
  renewal_policy_id: string;
  profile_id: string;
  agent_id: string;
  source: string;
  status: string;
  key_algorithm: string;
  /** jsonb text: not compact, and keys in jsonb's order (re-serialised below). */
  tags: string;
  /** Timestamps: UTC timestamp text, `YYYY-MM-DD HH:MM:SS[.ffffff]` (isoTimestamp). */
  not_before: string | null;
  expires_at: string | null;
  current_version_id: string | null;
  last_renewed_at: string | null;
  revoked_at: string | null;
  revocation_reason: string | null;
  created_at: string;
  updated_at: string;
}

const str = JSON.stringify;
const nullable = (value: string | null) => (value === null ? 'null' : str(value));

const TIMESTAMP_TEXT = /^(\d{4,})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)(?:\.(\d{1,6}))?( BC)?$/;

/**
 * A UTC timestamp as Postgres writes it (`YYYY-MM-DD HH:MM:SS[.ffffff]`, DateStyle ISO; trailing
 * zeros of the fraction dropped) as `Date.prototype.toISOString()` writes the same instant:
 * milliseconds truncated, as node-postgres' `Date` kept them, and `Z`. Years past 9999 and BC
 * dates take the slow path to toISOString's own `+YYYYYY` form.
 */
export function isoTimestamp(text: string): string {
  if (text.length === 19 && text[4] === '-') return `${text.slice(0, 10)}T${text.slice(11)}.000Z`;
  const lastIsDigit = text.charCodeAt(text.length - 1) <= 0x39;
  if (text.length > 20 && text.length <= 26 && text[4] === '-' && text[19] === '.' && lastIsDigit) {
    return `${text.slice(0, 10)}T${text.slice(11, 19)}.${(text.slice(20, 23) + '00').slice(0, 3)}Z`;
  }
  const parts = TIMESTAMP_TEXT.exec(text);
  if (!parts) throw new Error(`not a timestamp: ${JSON.stringify(text)}`);
  const [, year, month, day, hour, minute, second, fraction = '', bc] = parts;
  const date = new Date(0);
  date.setUTCFullYear(bc ? 1 - Number(year) : Number(year), Number(month) - 1, Number(day));
  date.setUTCHours(Number(hour), Number(minute), Number(second), Number((fraction + '00').slice(0, 3)));
  return date.toISOString();
}

const timestamp = (value: string | null) => (value === null ? 'null' : `"${isoTimestamp(value)}"`);
/** As the DTO path did: node-postgres JSON.parses jsonb, the reply JSON.stringifies the object. */
const tagsJson = (tags: string) => (tags === '{}' ? '{}' : str(JSON.parse(tags)));

export function certificatePageJson(rows: readonly CertificateTextRow[]): string {
  let out = '[';
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i];
    if (i > 0) out += ',';
    out +=
      `{"id":${str(r.id)},"name":${str(r.name)},"common_name":${str(r.common_name)},"sans":${r.sans}` +
      `,"environment":${str(r.environment)},"owner_id":${str(r.owner_id)},"team_id":${str(r.team_id)}` +
      `,"issuer_id":${str(r.issuer_id)},"renewal_policy_id":${str(r.renewal_policy_id)}` +
      `,"profile_id":${str(r.profile_id)},"agent_id":${str(r.agent_id)},"source":${str(r.source)}` +
      `,"status":${str(r.status)},"key_algorithm":${str(r.key_algorithm)},"tags":${tagsJson(r.tags)}` +
      `,"not_before":${timestamp(r.not_before)},"expires_at":${timestamp(r.expires_at)}` +
      `,"current_version_id":${nullable(r.current_version_id)},"last_renewed_at":${timestamp(r.last_renewed_at)}` +
      `,"revoked_at":${timestamp(r.revoked_at)},"revocation_reason":${nullable(r.revocation_reason)}` +
      `,"created_at":${timestamp(r.created_at)},"updated_at":${timestamp(r.updated_at)}}`;
  }
  return `${out}]`;
}
