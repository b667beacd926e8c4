import { errors, flattenedVerify, JWK } from 'jose';
import { AcmeProblem } from '../problems/acme-problem';
import { jwkThumbprint, parseAcmeJws } from './acme-jws';

/** The MAC algorithms an external account binding may use (RFC 8555 7.3.4: "a MAC-based algorithm"). */
export const EAB_MAC_ALGORITHMS = ['HS256', 'HS384', 'HS512'] as const;

/** An EAB key id as this server issues them (the `kid` of the inner JWS). */
export const EAB_KEY_ID_PATTERN = /^[A-Za-z0-9_-]{8,64}$/;

/**
 * RFC 8555 7.3.4, the CA's steps 1-5 for the `externalAccountBinding` of a newAccount whose outer
 * JWS the caller has authenticated: a well-formed JWS, a MAC algorithm, no nonce, the outer `url`,
 * a `kid` the CA issued, a MAC that verifies with that key's HMAC key, and a payload that is the
 * outer JWS's `jwk`. Returns the key id. Structural faults are `malformed`; an unknown key or a MAC
 * that does not verify is `unauthorized` (the client holds no credential of this CA).
 */
export async function checkExternalAccountBinding(
  binding: unknown,
  outer: { url: string; accountJwk: JWK },
  hmacKeyOf: (keyId: string) => Promise<Uint8Array | null>,
): Promise<{ keyId: string }> {
  const { jws, header } = parseAcmeJws(binding);
  const alg = header.alg;
  if (typeof alg !== 'string' || !(EAB_MAC_ALGORITHMS as readonly string[]).includes(alg))
    throw new AcmeProblem(
      'malformed',
      `the external account binding must use ${EAB_MAC_ALGORITHMS.join(', ')}`,
    );
  // "The protected header ... MUST NOT contain a nonce".
  if ('nonce' in header)
    throw new AcmeProblem('malformed', 'the external account binding must not carry a nonce');
  // "... url ... MUST be the same value as the url header parameter of the outer JWS".
  if (header.url !== outer.url)
    throw new AcmeProblem('malformed', 'the external account binding must name the url of the request');
  if (typeof header.kid !== 'string' || !EAB_KEY_ID_PATTERN.test(header.kid))
    throw new AcmeProblem('malformed', 'the external account binding needs the kid of an EAB key');
  if ('jwk' in header)
    throw new AcmeProblem('malformed', 'the external account binding must not carry a jwk');
  const hmacKey = await hmacKeyOf(header.kid);
  if (!hmacKey)
    throw new AcmeProblem('unauthorized', 'the external account key is unknown or no longer usable');
  let payload: Uint8Array;
  try {
    ({ payload } = await flattenedVerify(jws, hmacKey, { algorithms: [alg] }));
  } catch (error) {
    if (error instanceof errors.JWSSignatureVerificationFailed)
      throw new AcmeProblem('unauthorized', 'the external account binding MAC does not verify');
    throw new AcmeProblem('malformed', 'the external account binding is not a valid JWS');
  }
  // Step 5: "the payload of the inner JWS is the same public key as the jwk of the outer JWS".
  let bound: unknown;
  try {
    bound = JSON.parse(Buffer.from(payload).toString('utf8'));
  } catch {
    throw new AcmeProblem('malformed', 'the external account binding payload is not a JWK');
  }
  if (typeof bound !== 'object' || bound === null || Array.isArray(bound))
    throw new AcmeProblem('malformed', 'the external account binding payload is not a JWK');
  const [boundThumbprint, accountThumbprint] = await Promise.all([
    jwkThumbprint(bound as JWK).catch(() => null),
    jwkThumbprint(outer.accountJwk),
  ]);
  if (boundThumbprint !== accountThumbprint)
    throw new AcmeProblem('malformed', "the external account binding does not bind the request's key");
  return { keyId: header.kid };
}
