import { registerDecorator, ValidationOptions } from 'class-validator';

/**
 * The recipient key of a server-generated key release (ADR 0033): an ephemeral EC P-256 public
 * JWK (RFC 7517/7518) the agent makes for one fetch. The server wraps the private key to it with
 * ECDH-ES+A256KW, so only this shape is accepted: a private member (`d`), another curve or key
 * type, or a point that is not on P-256 (an invalid-curve point) is refused before any key is read.
 */
export interface RecipientPublicJwk {
  kty: 'EC';
  crv: 'P-256';
  x: string;
  y: string;
  kid?: string;
  alg?: string;
  use?: string;
  ext?: boolean;
  key_ops?: string[];
}

/** The shape of RecipientPublicJwk as JSON Schema, for the API description (ADR 0049). */
export const RECIPIENT_PUBLIC_JWK_JSON_SCHEMA = {
  type: 'object',
  description: 'An ephemeral EC P-256 public JWK (RFC 7517/7518); private members are refused.',
  required: ['kty', 'crv', 'x', 'y'],
  additionalProperties: false,
  properties: {
    kty: { const: 'EC' },
    crv: { const: 'P-256' },
    x: { type: 'string', pattern: '^[A-Za-z0-9_-]{43}$' },
    y: { type: 'string', pattern: '^[A-Za-z0-9_-]{43}$' },
    kid: { type: 'string' },
    alg: { type: 'string' },
    use: { type: 'string' },
    ext: { type: 'boolean' },
    key_ops: { type: 'array', items: { type: 'string' } },
  },
} as const;

/** The JWE algorithms of a key release: key agreement plus AES key wrap, AES-GCM content. */
export const KEY_RELEASE_ALG = 'ECDH-ES+A256KW';
export const KEY_RELEASE_ENC = 'A256GCM';

/** Members a public EC JWK may carry (what jose and WebCrypto export); anything else is refused. */
const ALLOWED_MEMBERS = new Set(['kty', 'crv', 'x', 'y', 'kid', 'alg', 'use', 'ext', 'key_ops']);
/** Members that only a private or symmetric key has. */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];

// NIST P-256 (SEC 2, FIPS 186-4 D.1.2.3): y^2 = x^3 - 3x + b (mod p).
const P = 0xffffffff00000001000000000000000000000000ffffffffffffffffffffffffn;
const B = 0x5ac635d8aa3a93e7b3ebbd55769886bc651d06b0cc53b0f63bce3c3e27d2604bn;

const BASE64URL_32_BYTES = /^[A-Za-z0-9_-]{42}[AEIMQUYcgkosw048]$/;

function base64urlToBigInt(value: string): bigint {
  const bytes = Buffer.from(value, 'base64url');
  return BigInt(`0x${bytes.toString('hex')}`);
}

function modPow(base: bigint, exponent: bigint, modulus: bigint): bigint {
  let result = 1n;
  let b = base % modulus;
  let e = exponent;
  while (e > 0n) {
    if (e & 1n) result = (result * b) % modulus;
    b = (b * b) % modulus;
    e >>= 1n;
  }
  return result;
}

function onP256(x: bigint, y: bigint): boolean {
  if (x >= P || y >= P) return false;
  const left = (y * y) % P;
  const right = (((modPow(x, 3n, P) - 3n * x + B) % P) + P) % P;
  return left === right;
}

/**
 * Why `value` is not an acceptable recipient key, or null when it is. Pure: no crypto library,
 * the on-curve check is the curve equation.
 */
export function recipientJwkProblem(value: unknown): string | null {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return 'recipient_public_jwk must be a JWK object';
  }
  const jwk = value as Record<string, unknown>;
  const secret = PRIVATE_MEMBERS.filter((member) => member in jwk);
  if (secret.length > 0) {
    return `recipient_public_jwk must be a public key: it carries private member ${secret.join(', ')}`;
  }
  if (jwk.kty !== 'EC') return 'recipient_public_jwk.kty must be "EC"';
  if (jwk.crv !== 'P-256') return 'recipient_public_jwk.crv must be "P-256"';
  const unknown = Object.keys(jwk).filter((member) => !ALLOWED_MEMBERS.has(member));
  if (unknown.length > 0) return `recipient_public_jwk has unknown member ${unknown.join(', ')}`;
  for (const coordinate of ['x', 'y'] as const) {
    const text = jwk[coordinate];
    if (typeof text !== 'string' || !BASE64URL_32_BYTES.test(text)) {
      return `recipient_public_jwk.${coordinate} must be 32 bytes, base64url without padding`;
    }
  }
  if (!onP256(base64urlToBigInt(jwk.x as string), base64urlToBigInt(jwk.y as string))) {
    return 'recipient_public_jwk is not a point on P-256';
  }
  if (jwk.alg !== undefined && jwk.alg !== KEY_RELEASE_ALG) {
    return `recipient_public_jwk.alg must be "${KEY_RELEASE_ALG}" when given`;
  }
  if (jwk.use !== undefined && jwk.use !== 'enc') return 'recipient_public_jwk.use must be "enc" when given';
  if (jwk.kid !== undefined && (typeof jwk.kid !== 'string' || jwk.kid.length > 256)) {
    return 'recipient_public_jwk.kid must be a string of at most 256 characters';
  }
  if (jwk.ext !== undefined && typeof jwk.ext !== 'boolean')
    return 'recipient_public_jwk.ext must be a boolean';
  if (
    jwk.key_ops !== undefined &&
    (!Array.isArray(jwk.key_ops) || jwk.key_ops.some((op) => typeof op !== 'string' || op.length > 32))
  ) {
    return 'recipient_public_jwk.key_ops must be an array of strings';
  }
  return null;
}

export const IS_RECIPIENT_PUBLIC_JWK = 'isRecipientPublicJwk';

/** class-validator decorator: the property is a recipient key as `recipientJwkProblem` says. */
export function IsRecipientPublicJwk(options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) => {
    registerDecorator({
      name: IS_RECIPIENT_PUBLIC_JWK,
      target: target.constructor,
      propertyName: propertyName as string,
      options,
      validator: {
        validate: (value: unknown) => recipientJwkProblem(value) === null,
        defaultMessage: (args) => recipientJwkProblem(args?.value) ?? 'recipient_public_jwk is invalid',
      },
    });
  };
}
