import { PkiError } from './errors';

/**
 * RFC 5280 5.3.1 CRLReason, with the camelCase names the API uses (spec 2.16). Code 7 is unused.
 */
export const REVOCATION_REASONS = {
  unspecified: 0,
  keyCompromise: 1,
  caCompromise: 2,
  affiliationChanged: 3,
  superseded: 4,
  cessationOfOperation: 5,
  certificateHold: 6,
  removeFromCRL: 8,
  privilegeWithdrawn: 9,
  aaCompromise: 10,
} as const;

export type RevocationReason = keyof typeof REVOCATION_REASONS;

export const REVOCATION_REASON_NAMES = Object.keys(REVOCATION_REASONS) as RevocationReason[];

const BY_CODE = new Map<number, RevocationReason>(
  Object.entries(REVOCATION_REASONS).map(([name, code]) => [code, name as RevocationReason]),
);

/** RFC 5280's ASN.1 spells two of them cACompromise and aACompromise; both spellings are accepted. */
const ALIASES: Record<string, RevocationReason> = {
  cACompromise: 'caCompromise',
  aACompromise: 'aaCompromise',
};

export function isRevocationReason(value: unknown): value is RevocationReason {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(REVOCATION_REASONS, value);
}

/** The reason named by `value`, or `revocation_reason_invalid`. */
export function parseRevocationReason(value: unknown): RevocationReason {
  if (isRevocationReason(value)) return value;
  if (typeof value === 'string' && Object.prototype.hasOwnProperty.call(ALIASES, value))
    return ALIASES[value];
  throw new PkiError('revocation_reason_invalid', `unknown revocation reason ${JSON.stringify(value)}`, {
    allowed: REVOCATION_REASON_NAMES,
  });
}

export function revocationReasonCode(reason: RevocationReason): number {
  return REVOCATION_REASONS[parseRevocationReason(reason)];
}

/** The reason with this RFC 5280 code, or `revocation_reason_invalid` (e.g. for the unused 7). */
export function revocationReasonFromCode(code: number): RevocationReason {
  const reason = BY_CODE.get(code);
  if (!reason) throw new PkiError('revocation_reason_invalid', `unknown CRLReason code ${code}`);
  return reason;
}
