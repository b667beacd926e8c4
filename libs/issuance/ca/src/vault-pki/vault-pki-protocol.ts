import { IssuerError, IssueRequest } from '@certlane/pki';
import { VaultAnswer } from './vault-http';

/**
 * What the `vault_pki` connector sends to and reads from Vault's PKI secrets engine (ADR 0083).
 * Pure: the connector does the requests.
 */

/** The longest part of Vault's error list carried into a message. */
const MAX_REASON_LENGTH = 300;

export interface VaultPkiConfig {
  /** https://vault.example.com:8200, no trailing slash. */
  address: string;
  mount: string;
  role: string;
  token: string;
  namespace?: string;
}

const segment = (value: string) => value.split('/').map(encodeURIComponent).join('/');

/** The URL of a path under the mount (`sign/web`, `revoke`, `cert/ca_chain`). */
export function mountUrl(config: VaultPkiConfig, path: string): string {
  return `${config.address}/v1/${segment(config.mount)}/${path}`;
}

/** The headers of every request: the token, the namespace (Vault Enterprise, HCP) when set. */
export function vaultHeaders(config: VaultPkiConfig): Record<string, string> {
  return {
    'x-vault-token': config.token,
    'x-vault-request': 'true',
    ...(config.namespace ? { 'x-vault-namespace': config.namespace } : {}),
  };
}

/** The role a request signs with: the profile's CA profile (`caProfile`) when given, else the issuer's. */
export function roleOf(config: VaultPkiConfig, request: IssueRequest): string {
  return request.profile.caProfile || config.role;
}

/**
 * The body of `POST /v1/<mount>/sign/<role>`: the CSR, the validity (`ttl` in hours, or the exact
 * `not_after`), and the names when the caller certifies others than the CSR's. The role decides
 * what Vault allows; a refusal names the rule.
 */
export function signBody(request: IssueRequest): Record<string, unknown> {
  const { profile } = request;
  const sans = profile.subjectAltNames ?? [];
  const of = (...types: string[]) => sans.filter((san) => types.includes(san.type)).map((san) => san.value);
  const altNames = of('dns', 'email');
  const ips = of('ip');
  const uris = of('uri');
  return {
    csr: request.csrPem,
    format: 'pem',
    ...(profile.notAfter
      ? { not_after: profile.notAfter.toISOString().replace(/\.\d{3}Z$/, 'Z') }
      : profile.validityDays
        ? { ttl: `${profile.validityDays * 24}h` }
        : {}),
    ...(profile.commonName ? { common_name: profile.commonName } : {}),
    ...(altNames.length > 0 ? { alt_names: altNames.join(',') } : {}),
    ...(ips.length > 0 ? { ip_sans: ips.join(',') } : {}),
    ...(uris.length > 0 ? { uri_sans: uris.join(',') } : {}),
  };
}

/** Vault's serial spelling: lower-case hex pairs joined by colons. */
export function vaultSerial(serialHex: string): string {
  const hex = serialHex.length % 2 === 1 ? `0${serialHex}` : serialHex;
  return (hex.match(/../g) ?? []).join(':').toLowerCase();
}

/** The PEM of a sign answer: the leaf, then the chain (`ca_chain`, else `issuing_ca`). */
export function signedPems(answer: VaultAnswer): string {
  const data = (answer.json?.data ?? {}) as Record<string, unknown>;
  const chain = Array.isArray(data.ca_chain)
    ? data.ca_chain.filter((pem): pem is string => typeof pem === 'string')
    : typeof data.issuing_ca === 'string'
      ? [data.issuing_ca]
      : [];
  return [data.certificate, ...chain].filter((pem) => typeof pem === 'string').join('\n');
}

/** Vault's `errors` list, joined and shortened. */
function reasonOf(answer: VaultAnswer): string {
  const errors = answer.json?.errors;
  const text = Array.isArray(errors)
    ? errors
        .filter((error): error is string => typeof error === 'string')
        .join('; ')
        .replace(/[\u0000-\u001f\u007f]/g, ' ')
        .trim()
    : '';
  return text.length > MAX_REASON_LENGTH ? `${text.slice(0, MAX_REASON_LENGTH)}...` : text;
}

/**
 * The failure an answer reports, or null for a 2xx: 5xx and 429 (sealed, standby, overloaded)
 * are Vault unavailable; 401 and 403 (a token without the policy), 404 (no such mount) and a
 * 405 are a misconfigured issuer; any other 4xx is Vault refusing the request (the role's rules).
 */
export function vaultFailure(answer: VaultAnswer, what: string): IssuerError | null {
  if (answer.status >= 200 && answer.status < 300) return null;
  const reason = reasonOf(answer);
  const message = `${what}: Vault answered ${answer.status}${reason ? `: ${reason}` : ''}`;
  if (answer.status >= 500 || answer.status === 429) return new IssuerError('unavailable', message);
  if ([401, 403, 404, 405].includes(answer.status)) return new IssuerError('misconfigured', message);
  return new IssuerError('rejected', message);
}
