import { CertificationRequest, IssuerError, IssueRequest } from '@certlane/pki';

/**
 * What the `acme` issuer asks its CA and how it reads the CA's failures (ADR 0084). Pure.
 */

/** The longest part of a CA's problem detail carried into a message. */
const MAX_REASON_LENGTH = 300;

export type AcmeIdentifier = { type: 'dns' | 'ip'; value: string };

/**
 * The identifiers an order asks for: the names the caller certifies when it names them, else the
 * CSR's DNS names and IP addresses (RFC 8555 7.4: the CSR must then ask for exactly these).
 */
export function orderIdentifiers(request: IssueRequest, csr: CertificationRequest): AcmeIdentifier[] {
  const names = request.profile.subjectAltNames ?? csr.subjectAltNames;
  const identifiers: AcmeIdentifier[] = [];
  for (const san of names) {
    if (
      (san.type === 'dns' || san.type === 'ip') &&
      !identifiers.some((i) => i.type === san.type && i.value === san.value)
    )
      identifiers.push({ type: san.type, value: san.value });
  }
  return identifiers;
}

/** The `_acme-challenge` name of an authorization's identifier (RFC 8555 8.4; a wildcard's base name). */
export function challengeRecordName(identifier: string): string {
  return `_acme-challenge.${identifier.replace(/^\*\./, '')}`;
}

/** Whether a name is inside a zone (the zone itself or below it), ignoring case and a final dot. */
export function inZone(name: string, zone: string): boolean {
  const n = name.toLowerCase().replace(/\.$/, '');
  const z = zone.toLowerCase().replace(/\.$/, '');
  return n === z || n.endsWith(`.${z}`);
}

/** What the issuer was doing when the CA answered with a failure. */
export type AcmeStep =
  'directory' | 'account' | 'order' | 'validation' | 'finalize' | 'download' | 'dns' | 'revoke';

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'ECONNABORTED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'ERR_BAD_RESPONSE',
]);

/**
 * A failure of one step as an IssuerError: no answer (a network error, a 5xx or 429 the client
 * gave up retrying) is the CA unavailable; a failure while reading the directory or registering
 * the account (a wrong EAB key, a CA requiring EAB) is a misconfigured issuer; a failure of the
 * order, its validation or its finalization is the CA refusing the request.
 */
export function acmeFailure(error: unknown, step: AcmeStep, what: string): IssuerError {
  if (error instanceof IssuerError) return error;
  const failure = error as { code?: string; message?: string; response?: { status?: number } };
  const detail = (failure.message ?? String(error)).replace(/[\u0000-\u001f\u007f]/g, ' ').trim();
  const reason = detail.length > MAX_REASON_LENGTH ? `${detail.slice(0, MAX_REASON_LENGTH)}...` : detail;
  const message = `${what}: ${step}: ${reason}`;
  const status = failure.response?.status ?? 0;
  if ((failure.code && NETWORK_CODES.has(failure.code)) || status >= 500 || status === 429)
    return new IssuerError('unavailable', message);
  if (step === 'directory' || step === 'account') return new IssuerError('misconfigured', message);
  return new IssuerError('rejected', message);
}
