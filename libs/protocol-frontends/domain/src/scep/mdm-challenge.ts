import { createHash, verify, X509Certificate } from 'node:crypto';

/** The `typ` of an MDM-signed SCEP challenge (ADR 0059; docs/scep.md). */
export const MDM_CHALLENGE_TYP = 'certlane-scep-challenge+jwt';
export const MDM_CHALLENGE_VERSION = 1;
/** Clock skew tolerated on exp and nbf. */
export const MDM_CLOCK_SKEW_SECONDS = 60;
/** The longest lifetime a challenge may claim (exp - nbf): a challenge is for one enrollment. */
export const MDM_MAX_LIFETIME_SECONDS = 24 * 3600;

const ALGORITHMS: Readonly<Record<string, { hash: string; pss?: boolean; dsaEncoding?: 'ieee-p1363' }>> = {
  RS256: { hash: 'sha256' },
  PS256: { hash: 'sha256', pss: true },
  ES256: { hash: 'sha256', dsaEncoding: 'ieee-p1363' },
  ES384: { hash: 'sha384', dsaEncoding: 'ieee-p1363' },
  EdDSA: { hash: '' },
};

/** The claims of an MDM challenge this server reads. */
export interface MdmChallengeClaims {
  ver: number;
  iss: string;
  aud: string | string[];
  iat?: number;
  nbf: number;
  exp: number;
  jti: string;
  /** The device the MDM vouches for (the device-state hook's key). */
  sub: string;
  /**
   * What the CSR may name. `cn`: the subject's one CN, exactly this. `dns`: the whole
   * SubjectAltName, exactly these DNS names and nothing of another type (`[]`: no SAN at all).
   * A claim left out leaves its part of the CSR to the profile's CSR policy.
   */
  cn?: string;
  dns?: string[];
}

/** The facts of the CSR the claims are matched against. */
export interface MdmCsrFacts {
  /** Every CN of the subject, in order. */
  commonNames: readonly string[];
  /** Every SubjectAltName entry (`dns`, `ip`, `email`, `url` or another type name, as EST reads them). */
  sans: readonly { type: string; value: string }[];
}

export type MdmStatusBeforeState =
  | 'malformed'
  | 'unknown_version'
  | 'signature_invalid'
  | 'expired'
  | 'not_yet_valid'
  | 'wrong_audience'
  | 'claim_mismatch';

export type MdmVerification =
  { ok: true; claims: MdmChallengeClaims } | { ok: false; status: MdmStatusBeforeState; reason: string };

/** Whether a challenge password is shaped like a compact JWS (three base64url parts). */
export const looksLikeMdmChallenge = (challenge: string): boolean =>
  /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(challenge);

const json = (part: string): unknown => JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));

/**
 * Verifies an MDM-signed challenge (a compact JWS) against the profile's MDM signing
 * certificates, in the order the statuses are counted: malformed (not a JWS, an algorithm or
 * claim missing), unknown_version, signature_invalid (no anchor named by `x5t#S256`, or the
 * signature does not verify), expired, not_yet_valid, wrong_audience, claim_mismatch. Replay,
 * rate limit and device state need storage and are the caller's.
 */
export function verifyMdmChallenge(
  token: string,
  context: { anchors: readonly X509Certificate[]; audience: string; now: Date; csr: MdmCsrFacts },
): MdmVerification {
  const parts = token.split('.');
  if (parts.length !== 3) return { ok: false, status: 'malformed', reason: 'not a compact JWS' };
  let header: Record<string, unknown>;
  let claims: Partial<MdmChallengeClaims>;
  try {
    header = json(parts[0]) as Record<string, unknown>;
    claims = json(parts[1]) as Partial<MdmChallengeClaims>;
  } catch {
    return { ok: false, status: 'malformed', reason: 'the header or claims are not base64url JSON' };
  }
  if (typeof header !== 'object' || header === null || typeof claims !== 'object' || claims === null)
    return { ok: false, status: 'malformed', reason: 'the header or claims are not JSON objects' };
  if (header.typ !== MDM_CHALLENGE_TYP)
    return { ok: false, status: 'malformed', reason: `typ must be ${MDM_CHALLENGE_TYP}` };
  const algorithm = typeof header.alg === 'string' ? ALGORITHMS[header.alg] : undefined;
  if (!algorithm)
    return { ok: false, status: 'malformed', reason: 'alg must be RS256, PS256, ES256, ES384 or EdDSA' };
  if (typeof header['x5t#S256'] !== 'string')
    return { ok: false, status: 'malformed', reason: 'x5t#S256 names no signing certificate' };
  if (claims.ver !== MDM_CHALLENGE_VERSION)
    return {
      ok: false,
      status: claims.ver === undefined ? 'malformed' : 'unknown_version',
      reason: `ver ${String(claims.ver)}`,
    };
  const required = ['iss', 'jti', 'sub'] as const;
  if (
    required.some(
      (name) =>
        typeof claims[name] !== 'string' ||
        (claims[name] as string).length === 0 ||
        (claims[name] as string).length > 256,
    ) ||
    typeof claims.nbf !== 'number' ||
    typeof claims.exp !== 'number' ||
    !(
      typeof claims.aud === 'string' ||
      (Array.isArray(claims.aud) && claims.aud.every((a) => typeof a === 'string'))
    ) ||
    (claims.cn !== undefined && typeof claims.cn !== 'string') ||
    (claims.dns !== undefined &&
      !(Array.isArray(claims.dns) && claims.dns.every((d) => typeof d === 'string')))
  )
    return { ok: false, status: 'malformed', reason: 'iss, sub, jti, aud, nbf and exp are required' };
  if (claims.exp - claims.nbf > MDM_MAX_LIFETIME_SECONDS)
    return {
      ok: false,
      status: 'malformed',
      reason: `a challenge may live at most ${MDM_MAX_LIFETIME_SECONDS} seconds`,
    };

  const anchor = context.anchors.find(
    (a) => createHash('sha256').update(a.raw).digest('base64url') === header['x5t#S256'],
  );
  if (!anchor)
    return { ok: false, status: 'signature_invalid', reason: 'x5t#S256 names no trusted MDM certificate' };
  const signingInput = Buffer.from(`${parts[0]}.${parts[1]}`);
  const signature = Buffer.from(parts[2], 'base64url');
  let valid = false;
  try {
    valid = verify(
      algorithm.hash || null,
      signingInput,
      {
        key: anchor.publicKey,
        ...(algorithm.pss ? { padding: 6 /* RSA_PKCS1_PSS_PADDING */, saltLength: 32 } : {}),
        ...(algorithm.dsaEncoding ? { dsaEncoding: algorithm.dsaEncoding } : {}),
      },
      signature,
    );
  } catch {
    valid = false;
  }
  if (!valid) return { ok: false, status: 'signature_invalid', reason: 'the signature does not verify' };

  const now = Math.floor(context.now.getTime() / 1000);
  if (claims.exp + MDM_CLOCK_SKEW_SECONDS < now)
    return { ok: false, status: 'expired', reason: 'exp has passed' };
  if (claims.nbf - MDM_CLOCK_SKEW_SECONDS > now)
    return { ok: false, status: 'not_yet_valid', reason: 'nbf is in the future' };
  const audiences = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
  if (!audiences.includes(context.audience))
    return { ok: false, status: 'wrong_audience', reason: 'aud does not name this profile' };
  const mismatch = claimMismatch(claims, context.csr);
  if (mismatch) return { ok: false, status: 'claim_mismatch', reason: mismatch };
  return { ok: true, claims: claims as MdmChallengeClaims };
}

/**
 * Why the CSR names something the `cn` and `dns` claims do not, or null. A claim pins all of its
 * part of the request (review finding 6): a second CN, or a SAN of a type the claims cannot
 * express (IP, e-mail, URI, otherName...), would otherwise ride along unchecked.
 */
function claimMismatch(claims: Partial<MdmChallengeClaims>, csr: MdmCsrFacts): string | null {
  if (claims.cn !== undefined) {
    if (csr.commonNames.length !== 1)
      return `the CSR subject has ${csr.commonNames.length} CNs; the cn claim names one`;
    if (csr.commonNames[0] !== claims.cn) return 'the CSR subject CN is not the cn claim';
  }
  if (claims.dns !== undefined) {
    const others = csr.sans.filter((san) => san.type !== 'dns');
    if (others.length > 0)
      return `the dns claim names every SAN, and the CSR has ${others.map((san) => san.type).join(', ')} SANs too`;
    const want = [...new Set(claims.dns.map((d) => d.toLowerCase()))].sort();
    const got = [...new Set(csr.sans.map((san) => san.value.toLowerCase()))].sort();
    if (want.join(',') !== got.join(',')) return 'the CSR DNS names are not the dns claim';
  }
  return null;
}
