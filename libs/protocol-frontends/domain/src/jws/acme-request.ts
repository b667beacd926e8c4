import { JWK } from 'jose';
import { AcmeProblem } from '../problems/acme-problem';
import {
  AcmeKeyMode,
  AcmePayload,
  AcmeProtectedHeader,
  checkProtectedHeader,
  parseAcmeJws,
  parseAcmePayload,
  verifyAcmeSignature,
} from './acme-jws';

export type AcmeAccountStatus = 'valid' | 'deactivated' | 'revoked';

export interface AcmeKnownAccount {
  id: string;
  jwk: JWK;
  status: AcmeAccountStatus;
}

/** What authenticating a request needs from storage: the nonce store and the account by its URL. */
export interface AcmeRequestPorts {
  /** True exactly once per issued, unexpired nonce (across every replica). */
  consumeNonce(nonce: string): Promise<boolean>;
  accountByKid(kid: string): Promise<AcmeKnownAccount | null>;
}

export type AcmeAuthenticatedRequest = {
  header: AcmeProtectedHeader;
  payload: AcmePayload;
  /** The key that signed: the header's jwk, or the account's. */
  jwk: JWK;
  /** The signing account when the request used `kid`. */
  account: AcmeKnownAccount | null;
};

/**
 * RFC 8555 7.3.6: a request from a deactivated (or revoked) account "MUST return an error response
 * with status code 401 (Unauthorized) and type unauthorized", newAccount with its key included.
 */
export function inactiveAccount(status: AcmeAccountStatus): AcmeProblem {
  return new AcmeProblem('unauthorized', `the account is ${status}`, { status: 401 });
}

/**
 * Authenticates one ACME POST (RFC 8555 6.2-6.5): envelope, protected header, single-use nonce,
 * account (when `kid`), signature, payload. Every failure is an AcmeProblem.
 */
export async function authenticateAcmeRequest(
  body: unknown,
  rules: { url: string; key: AcmeKeyMode },
  ports: AcmeRequestPorts,
): Promise<AcmeAuthenticatedRequest> {
  const { jws, header: rawHeader } = parseAcmeJws(body);
  const header = checkProtectedHeader(rawHeader, rules);
  // RFC 8555 6.5: "If the value of the nonce header parameter is not a valid nonce, the server MUST reject".
  if (!(await ports.consumeNonce(header.nonce)))
    throw new AcmeProblem('badNonce', 'the nonce is unknown, expired or already used');
  let account: AcmeKnownAccount | null = null;
  let jwk: JWK;
  if (header.kid !== undefined) {
    account = await ports.accountByKid(header.kid);
    if (!account) throw new AcmeProblem('accountDoesNotExist', `no account ${header.kid}`);
    if (account.status !== 'valid') throw inactiveAccount(account.status);
    jwk = account.jwk;
  } else {
    jwk = header.jwk as JWK;
  }
  const payload = parseAcmePayload(await verifyAcmeSignature(jws, header, jwk));
  return { header, payload, jwk, account };
}
