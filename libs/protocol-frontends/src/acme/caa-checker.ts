import { Resolver } from 'node:dns/promises';
import {
  AcmeIdentifier,
  AcmeProblem,
  CaaRecord,
  checkCaa,
  relevantCaaRecords,
} from '@certlane/protocol-frontends-domain';
import { accountIdOfAccountUri } from './acme-urls';

export interface CaaCheckerOptions {
  /** `host[:port]` resolvers (SERVICE_ACME_DNS_RESOLVERS); empty: the system's. */
  resolvers: readonly string[];
  timeoutMs: number;
}

export type CaaCheck = (input: {
  identifier: AcmeIdentifier;
  wildcard: boolean;
  accountId: string;
  validationMethod: string;
  /** The issuer domain names that name this CA in CAA records (the profile's, else SERVICE_ACME_CAA_IDENTITIES). */
  identities: readonly string[];
}) => Promise<AcmeProblem | null>;

/** CAA records of one name through the resolvers: [] when it has none, a `dns` problem when the lookup fails. */
async function lookupCaa(resolver: Resolver, name: string): Promise<CaaRecord[]> {
  try {
    const answers = await resolver.resolveCaa(name);
    return answers.map((answer) => {
      const { critical, ...rest } = answer as unknown as Record<string, unknown> & { critical: number };
      const [tag, value] = Object.entries(rest)[0] ?? ['', ''];
      return { critical: (critical & 128) !== 0, tag, value: String(value) };
    });
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'ENOTFOUND' || code === 'ENODATA') return [];
    throw new AcmeProblem('dns', `looking up CAA ${name} failed: ${code ?? String(error)}`);
  }
}

/**
 * CAA checking (RFC 8659 with RFC 8657's accounturi and validationmethods) for dns identifiers;
 * IP identifiers have no CAA (RFC 8738 7 leaves them out).
 */
export function caaChecker(options: CaaCheckerOptions): CaaCheck {
  return async ({ identifier, wildcard, accountId, validationMethod, identities }) => {
    if (identifier.type !== 'dns') return null;
    const resolver = new Resolver({ timeout: options.timeoutMs, tries: 2 });
    if (options.resolvers.length) resolver.setServers([...options.resolvers]);
    try {
      const relevant = await relevantCaaRecords(identifier.value, (name) => lookupCaa(resolver, name));
      if (relevant)
        checkCaa(relevant.records, {
          wildcard,
          caaIdentities: identities,
          accountId,
          accountIdOfUri: accountIdOfAccountUri,
          validationMethod,
        });
      return null;
    } catch (error) {
      if (error instanceof AcmeProblem) return error;
      throw error;
    }
  };
}
