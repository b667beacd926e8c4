import { Resolver } from 'node:dns/promises';
import {
  AcmeIdentifier,
  AcmeProblem,
  checkDnsPersist,
  dns01TxtValue,
  DNS_PERSIST_LABEL,
  dnsPersistDomains,
  DnsPersistAccount,
  DnsPersistLookup,
} from '@certlane/protocol-frontends-domain';
import { accountIdOfAccountUri } from './acme-urls';

export interface Dns01Options {
  /** `host` or `host:port` of the resolvers to ask; empty: the system's. */
  resolvers: readonly string[];
  timeoutMs: number;
}

/**
 * dns-01 (RFC 8555 8.4): a TXT record at `_acme-challenge.<domain>` (the base domain of a
 * wildcard) holding base64url(SHA-256(key authorization)), looked up through the configured
 * resolvers (SERVICE_ACME_DNS_RESOLVERS), so tests and private deployments name their own.
 */
export async function validateDns01(
  identifier: AcmeIdentifier,
  keyAuth: string,
  options: Dns01Options,
): Promise<{ ok: true } | { ok: false; problem: AcmeProblem }> {
  const resolver = new Resolver({ timeout: options.timeoutMs, tries: 2 });
  if (options.resolvers.length) resolver.setServers([...options.resolvers]);
  const name = `_acme-challenge.${identifier.value}`;
  let records: string[][];
  try {
    records = await resolver.resolveTxt(name);
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'ENOTFOUND' || code === 'ENODATA')
      return { ok: false, problem: new AcmeProblem('incorrectResponse', `no TXT record at ${name}`) };
    return {
      ok: false,
      problem: new AcmeProblem('dns', `looking up TXT ${name} failed: ${code ?? String(error)}`),
    };
  }
  const expected = dns01TxtValue(keyAuth);
  // A TXT record may come in several character-strings; they form one value (RFC 7208 3.3 practice).
  if (records.some((chunks) => chunks.join('') === expected)) return { ok: true };
  return {
    ok: false,
    problem: new AcmeProblem('incorrectResponse', `no TXT record at ${name} holds the expected value`),
  };
}

/**
 * dns-persist-01 (draft-ietf-acme-dns-persist): the standing TXT records at
 * `_validation-persist.<d>` for the domain (the base domain of a wildcard) and each ancestor
 * `dnsPersistDomains` names, looked up at once through the same resolvers as dns-01; which record
 * validates what is `checkDnsPersist` (domain).
 */
export async function validateDnsPersist01(
  identifier: AcmeIdentifier,
  authorization: { account_id: string; wildcard: boolean },
  issuerDomainNames: readonly string[],
  account: DnsPersistAccount,
  options: Dns01Options,
): Promise<{ ok: true; validUntil?: Date } | { ok: false; problem: AcmeProblem }> {
  const resolver = new Resolver({ timeout: options.timeoutMs, tries: 2 });
  if (options.resolvers.length) resolver.setServers([...options.resolvers]);
  const lookups = await Promise.all(
    dnsPersistDomains(identifier.value).map(async (domain): Promise<DnsPersistLookup> => {
      try {
        const records = await resolver.resolveTxt(`${DNS_PERSIST_LABEL}.${domain}`);
        return { domain, values: records.map((chunks) => chunks.join('')) };
      } catch (error) {
        const code = (error as { code?: string }).code;
        if (code === 'ENOTFOUND' || code === 'ENODATA') return { domain, values: [] };
        return { domain, failure: code ?? String(error) };
      }
    }),
  );
  try {
    const { validUntil } = checkDnsPersist(lookups, {
      issuerDomainNames,
      accountId: authorization.account_id,
      ...account,
      accountIdOfUri: accountIdOfAccountUri,
      domain: identifier.value,
      wildcard: authorization.wildcard,
      now: new Date(),
    });
    return { ok: true, ...(validUntil ? { validUntil } : {}) };
  } catch (error) {
    if (error instanceof AcmeProblem) return { ok: false, problem: error };
    throw error;
  }
}
