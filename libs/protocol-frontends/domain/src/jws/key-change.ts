import { JWK } from 'jose';
import { AcmeProblem } from '../problems/acme-problem';
import {
  AcmeProtectedHeader,
  checkProtectedHeader,
  jwkThumbprint,
  parseAcmeJws,
  parseAcmePayload,
  verifyAcmeSignature,
} from './acme-jws';

/**
 * RFC 8555 7.3.5, steps 2-8: the inner JWS of a key-change request, whose outer JWS the caller
 * has authenticated (step 1). Returns the new key and its thumbprint; whether another account
 * already has that key (step 9) is the store's to say.
 */
export async function checkKeyChange(
  innerBody: unknown,
  outer: { url: string; accountUrl: string; accountJwk: JWK },
): Promise<{ newJwk: JWK; newThumbprint: string }> {
  const { jws, header: rawHeader } = parseAcmeJws(innerBody);
  // "The inner JWS MUST omit the nonce header parameter" (and sign with its jwk, for the same url).
  if ('nonce' in rawHeader)
    throw new AcmeProblem('malformed', 'the inner JWS of a key change must not carry a nonce');
  let header: AcmeProtectedHeader;
  try {
    header = checkProtectedHeader({ ...rawHeader, nonce: 'inner' }, { url: outer.url, key: 'jwk' });
  } catch (error) {
    // Step 6: "Check that the url parameters of the inner and outer JWSs are the same."
    if (error instanceof AcmeProblem && error.type === 'unauthorized')
      throw new AcmeProblem('malformed', 'the inner and outer JWS of a key change must name the same url');
    throw error;
  }
  const newJwk = header.jwk as JWK;
  // Step 4: the inner JWS verifies with the key in its own jwk.
  const payload = parseAcmePayload(await verifyAcmeSignature(jws, header, newJwk));
  if (payload.postAsGet)
    throw new AcmeProblem('malformed', 'the inner JWS of a key change needs a keyChange object');
  const { account, oldKey } = payload.json;
  // Step 7: "account" names the account of the outer JWS.
  if (account !== outer.accountUrl)
    throw new AcmeProblem('malformed', 'the keyChange account is not the account signing the request');
  // Step 8: "oldKey" is the account's current key.
  if (typeof oldKey !== 'object' || oldKey === null || Array.isArray(oldKey))
    throw new AcmeProblem('malformed', 'the keyChange oldKey must be a JWK');
  const [oldThumbprint, currentThumbprint, newThumbprint] = await Promise.all([
    jwkThumbprint(oldKey as JWK).catch(() => null),
    jwkThumbprint(outer.accountJwk),
    jwkThumbprint(newJwk),
  ]);
  if (oldThumbprint !== currentThumbprint)
    throw new AcmeProblem('malformed', "the keyChange oldKey is not the account's current key");
  if (newThumbprint === currentThumbprint)
    throw new AcmeProblem('malformed', 'the new key is the key the account already has');
  return { newJwk, newThumbprint };
}
