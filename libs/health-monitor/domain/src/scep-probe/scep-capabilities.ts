/**
 * A GetCACaps line kept as a capability: a keyword-shaped token (RFC 8894 3.5.2 keywords are
 * short words such as `SHA-256` or `POSTPKIOperation`). Anything else is not stored, so probing
 * a URL that is not a SCEP server does not copy that server's page into the probe history.
 */
const CAPABILITY_KEYWORD = /^[A-Za-z0-9.-]{1,64}$/;
/** At most this many keywords are kept (RFC 8894 defines about a dozen). */
export const SCEP_CAPABILITIES_MAX = 32;

/** What a GetCACaps answer says the server supports (RFC 8894 3.5.2). */
export interface ScepCapabilities {
  /** The advertised keywords, as sent, one per line; lines that are not keyword-shaped are dropped. */
  capabilities: string[];
  supports_rfc8894: boolean;
  supports_aes: boolean;
  supports_post: boolean;
  supports_renewal: boolean;
  supports_sha256: boolean;
  supports_sha512: boolean;
}

/**
 * Parses a GetCACaps body. Keywords compare case-insensitively (RFC 8894 3.5.2: clients MUST
 * accept any case). `SCEPStandard` means the server MUST support AES, POSTPKIOperation and
 * SHA-256, so it sets those flags too.
 */
export function parseScepCapabilities(body: string): ScepCapabilities {
  const capabilities = body
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => CAPABILITY_KEYWORD.test(line))
    .slice(0, SCEP_CAPABILITIES_MAX);
  const has = (keyword: string) => capabilities.some((c) => c.toLowerCase() === keyword.toLowerCase());
  const standard = has('SCEPStandard');
  return {
    capabilities,
    supports_rfc8894: standard,
    supports_aes: standard || has('AES'),
    supports_post: standard || has('POSTPKIOperation'),
    supports_renewal: has('Renewal'),
    supports_sha256: standard || has('SHA-256'),
    supports_sha512: has('SHA-512'),
  };
}

/** Days until `notAfter`, recomputed whenever a probe is read (spec 2.17); negative once expired. */
export function daysToExpiry(notAfter: Date, now: Date): number {
  return Math.floor((notAfter.getTime() - now.getTime()) / 86_400_000);
}

/** Key algorithm text of spec 2.17: RSA-<bits>, ECDSA-<curve>, Ed25519, Ed448, DSA-<bits>. */
export function keyAlgorithmText(
  type: string | undefined,
  details: { modulusLength?: number; namedCurve?: string },
): string {
  switch (type) {
    case 'rsa':
    case 'rsa-pss':
      return `RSA-${details.modulusLength ?? '?'}`;
    case 'ec':
      return `ECDSA-${details.namedCurve ?? '?'}`;
    case 'ed25519':
      return 'Ed25519';
    case 'ed448':
      return 'Ed448';
    case 'dsa':
      return `DSA-${details.modulusLength ?? '?'}`;
    default:
      return type ?? 'unknown';
  }
}
