import { calculateJwkThumbprint, errors, flattenedVerify, FlattenedJWSInput, importJWK, JWK } from 'jose';
import { AcmeProblem } from '../problems/acme-problem';

/**
 * The signature algorithms accepted on ACME requests (RFC 8555 6.2: asymmetric only, never `none`
 * or MACs; ES256 MUST, EdDSA SHOULD). The other ECDSA curves and RSA hashes are there for clients
 * that make P-521 (acme.sh `ec-521`, Posh-ACME) or RSA-SHA-384/512 account keys.
 */
export const ACME_JWS_ALGORITHMS = [
  'ES256',
  'ES384',
  'ES512',
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'EdDSA',
] as const;

/**
 * Which key a resource is signed with (RFC 8555 6.2): newAccount carries the new key as `jwk`;
 * revokeCert may be signed by the account (`kid`) or by the certificate's own key (`jwk`);
 * everything else names the account by `kid`.
 */
export type AcmeKeyMode = 'jwk' | 'kid' | 'either';

export interface AcmeProtectedHeader {
  alg: (typeof ACME_JWS_ALGORITHMS)[number];
  nonce: string;
  url: string;
  kid?: string;
  jwk?: JWK;
}

const NONCE = /^[A-Za-z0-9_-]+$/;
const PRIVATE_JWK_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];

/** RFC 8555 6.2: the body is a flattened JWS: one signature, no unprotected header. */
export function parseAcmeJws(body: unknown): { jws: FlattenedJWSInput; header: Record<string, unknown> } {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new AcmeProblem('malformed', 'the request body must be a JWS in flattened JSON serialization');
  const record = body as Record<string, unknown>;
  if ('signatures' in record)
    throw new AcmeProblem(
      'malformed',
      'the JWS must use the flattened JSON serialization with one signature',
    );
  if ('header' in record) throw new AcmeProblem('malformed', 'the JWS must not have an unprotected header');
  const { protected: protectedPart, payload, signature } = record;
  if (typeof protectedPart !== 'string' || typeof payload !== 'string' || typeof signature !== 'string')
    throw new AcmeProblem('malformed', 'the JWS needs string protected, payload and signature members');
  let header: unknown;
  try {
    header = JSON.parse(Buffer.from(protectedPart, 'base64url').toString('utf8'));
  } catch {
    throw new AcmeProblem('malformed', 'the JWS protected header is not base64url-encoded JSON');
  }
  if (typeof header !== 'object' || header === null || Array.isArray(header))
    throw new AcmeProblem('malformed', 'the JWS protected header must be a JSON object');
  // RFC 8555 6.2: "The JWS Unencoded Payload Option [RFC7797] MUST NOT be used"; jose would honour
  // it (b64 is a crit parameter it knows), and ACME defines no other critical header parameter.
  if ('b64' in header || 'crit' in header)
    throw new AcmeProblem(
      'malformed',
      'the JWS must not use the unencoded payload option (b64) or critical header parameters (crit)',
    );
  return { jws: { protected: protectedPart, payload, signature }, header: header as Record<string, unknown> };
}

/**
 * The protected-header rules of RFC 8555 6.2-6.5, in the order the reference server applies them:
 * algorithm, key (exactly one of `jwk`/`kid`, the one the resource wants), `url`, `nonce` present.
 * Whether the nonce was issued and is unused is the nonce store's to say.
 */
export function checkProtectedHeader(
  header: Record<string, unknown>,
  rules: { url: string; key: AcmeKeyMode },
): AcmeProtectedHeader {
  const { alg, jwk, kid, url, nonce } = header;
  if (typeof alg !== 'string' || !(ACME_JWS_ALGORITHMS as readonly string[]).includes(alg))
    throw new AcmeProblem('badSignatureAlgorithm', `the JWS algorithm ${String(alg)} is not supported`, {
      algorithms: [...ACME_JWS_ALGORITHMS],
    });
  if ((jwk === undefined) === (kid === undefined))
    throw new AcmeProblem('malformed', 'the JWS protected header must contain exactly one of jwk and kid');
  if (rules.key === 'jwk' && kid !== undefined)
    throw new AcmeProblem('malformed', 'this resource must be signed with a jwk, not a kid');
  if (rules.key === 'kid' && jwk !== undefined)
    throw new AcmeProblem('malformed', 'this resource must be signed by an account (kid), not a jwk');
  if (kid !== undefined && (typeof kid !== 'string' || kid === ''))
    throw new AcmeProblem('malformed', 'the JWS kid must be an account URL');
  if (jwk !== undefined) {
    if (typeof jwk !== 'object' || jwk === null || Array.isArray(jwk) || typeof (jwk as JWK).kty !== 'string')
      throw new AcmeProblem('malformed', 'the JWS jwk must be a JSON Web Key');
    if (PRIVATE_JWK_MEMBERS.some((m) => m in (jwk as object)))
      throw new AcmeProblem('badPublicKey', 'the JWS jwk must be a public key');
  }
  // RFC 8555 6.4.1: "...the server MUST reject the request as unauthorized" when url differs.
  if (typeof url !== 'string')
    throw new AcmeProblem('malformed', 'the JWS protected header must contain a url');
  if (url !== rules.url)
    throw new AcmeProblem('unauthorized', `the JWS url ${url} is not the URL the request was sent to`);
  if (typeof nonce !== 'string' || !NONCE.test(nonce))
    throw new AcmeProblem('badNonce', 'the JWS protected header must contain a nonce from this server');
  return {
    alg: alg as AcmeProtectedHeader['alg'],
    nonce,
    url,
    ...(kid !== undefined ? { kid: kid as string } : {}),
    ...(jwk !== undefined ? { jwk: jwk as JWK } : {}),
  };
}

/** RFC 7518 3.1: each algorithm names its key type (and curve); jose would only fail the signature. */
function keyFitsAlgorithm(jwk: JWK, alg: AcmeProtectedHeader['alg']): boolean {
  switch (alg) {
    case 'RS256':
    case 'RS384':
    case 'RS512':
    case 'PS256':
    case 'PS384':
    case 'PS512':
      return jwk.kty === 'RSA';
    case 'ES256':
      return jwk.kty === 'EC' && jwk.crv === 'P-256';
    case 'ES384':
      return jwk.kty === 'EC' && jwk.crv === 'P-384';
    case 'ES512':
      return jwk.kty === 'EC' && jwk.crv === 'P-521';
    case 'EdDSA':
      return jwk.kty === 'OKP' && (jwk.crv === 'Ed25519' || jwk.crv === 'Ed448');
  }
}

/** RSA account keys accepted (RFC 8555 6.7 badPublicKey outside): as CA/B Forum keys, at most 8192. */
const MIN_RSA_BITS = 2048;
const MAX_RSA_BITS = 8192;

/** The size in bits of a JWK's base64url modulus `n` (leading zero bytes not counted). */
function modulusBits(n: string): number {
  const bytes = Buffer.from(n, 'base64url');
  let start = 0;
  while (start < bytes.length && bytes[start] === 0) start++;
  if (start === bytes.length) return 0;
  return (bytes.length - start - 1) * 8 + (32 - Math.clz32(bytes[start]));
}

type ImportedKey = Awaited<ReturnType<typeof importJWK>>;

/** Imported public keys by algorithm and key members: an account signs many requests. */
const importedKeys = new Map<string, Promise<ImportedKey>>();
const IMPORTED_KEYS_MAX = 10_000;

function importedKey(jwk: JWK, alg: string): Promise<ImportedKey> {
  if (jwk.d !== undefined) return importJWK(jwk, alg);
  const id = `${alg} ${jwk.kty} ${jwk.crv ?? ''} ${jwk.x ?? ''} ${jwk.y ?? ''} ${jwk.n ?? ''} ${jwk.e ?? ''}`;
  let key = importedKeys.get(id);
  if (!key) {
    if (importedKeys.size >= IMPORTED_KEYS_MAX) importedKeys.delete(importedKeys.keys().next().value!);
    key = importJWK(jwk, alg);
    key.catch(() => importedKeys.delete(id));
    importedKeys.set(id, key);
  }
  return key;
}

/** Verifies the signature with the account's (or the header's) public key and returns the payload. */
export async function verifyAcmeSignature(
  jws: FlattenedJWSInput,
  header: AcmeProtectedHeader,
  jwk: JWK,
): Promise<Uint8Array> {
  if (!keyFitsAlgorithm(jwk, header.alg))
    throw new AcmeProblem('badPublicKey', `a ${jwk.kty} ${jwk.crv ?? ''} key cannot sign ${header.alg}`);
  const rsaBits = jwk.kty === 'RSA' && typeof jwk.n === 'string' ? modulusBits(jwk.n) : null;
  // jose refuses an RSA key under 2048 bits with the error of any bad signature: named here.
  if (rsaBits !== null && (rsaBits < MIN_RSA_BITS || rsaBits > MAX_RSA_BITS))
    throw new AcmeProblem(
      'badPublicKey',
      `an RSA account key must have ${MIN_RSA_BITS} to ${MAX_RSA_BITS} bits; this one has ${rsaBits}`,
    );
  let key: ImportedKey;
  try {
    key = await importedKey(jwk, header.alg);
  } catch {
    throw new AcmeProblem('badPublicKey', `the key cannot be used with ${header.alg}`);
  }
  try {
    const { payload } = await flattenedVerify(jws, key, { algorithms: [...ACME_JWS_ALGORITHMS] });
    return payload;
  } catch (error) {
    if (error instanceof errors.JOSEAlgNotAllowed)
      throw new AcmeProblem('badSignatureAlgorithm', error.message, { algorithms: [...ACME_JWS_ALGORITHMS] });
    throw new AcmeProblem('malformed', 'the JWS signature does not verify');
  }
}

export type AcmePayload = { postAsGet: true } | { postAsGet: false; json: Record<string, unknown> };

/** RFC 8555 6.3: an empty payload is a POST-as-GET; anything else must be a JSON object. */
export function parseAcmePayload(payload: Uint8Array): AcmePayload {
  if (payload.length === 0) return { postAsGet: true };
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(payload).toString('utf8'));
  } catch {
    throw new AcmeProblem('malformed', 'the JWS payload is not JSON');
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json))
    throw new AcmeProblem('malformed', 'the JWS payload must be a JSON object');
  return { postAsGet: false, json: json as Record<string, unknown> };
}

/** RFC 7638 SHA-256 thumbprint of a public key: how accounts are found by key. */
export function jwkThumbprint(jwk: JWK): Promise<string> {
  return calculateJwkThumbprint(jwk, 'sha256');
}
