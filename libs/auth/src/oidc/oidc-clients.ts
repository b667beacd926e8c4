import { Injectable } from '@nestjs/common';
import { OidcKeyInfo, OidcSigningAlgorithm } from '@certlane/contracts';
import * as client from 'openid-client';

/** Outbound calls to an identity provider (discovery, token, key set) give up after this. */
const TIMEOUT_SECONDS = 10;
/** A key set larger than this is not a key set. */
const MAX_KEY_SET_BYTES = 256 * 1024;
/** An unknown `kid` refetches the key set at most this often (rotation, without letting tokens force fetches). */
const REFETCH_GAP_MS = 30_000;

export interface JsonWebKeySet {
  keys: Record<string, unknown>[];
}

interface ProviderClientSettings {
  id: string;
  issuer: string;
  client_id: string;
  id_token_signing_alg: OidcSigningAlgorithm;
  updated_at: Date;
}

/** Discovery of an issuer: openid-client's Configuration for it (the issuer in the metadata must match). */
export function discover(
  issuer: string,
  clientId: string,
  clientSecret: string | null,
  idTokenAlg: OidcSigningAlgorithm,
): Promise<client.Configuration> {
  const url = new URL(issuer);
  const metadata: Partial<client.ClientMetadata> = { id_token_signed_response_alg: idTokenAlg };
  if (clientSecret !== null) metadata.client_secret = clientSecret;
  return client.discovery(
    url,
    clientId,
    metadata,
    clientSecret !== null ? client.ClientSecretBasic(clientSecret) : client.None(),
    {
      timeout: TIMEOUT_SECONDS,
      // http only reaches a loopback IdP: the provider's settings refuse any other (oidc-rules).
      execute: url.protocol === 'http:' ? [client.allowInsecureRequests] : [],
    },
  );
}

/** Fetches a key set (no redirects, bounded size and time). */
export async function fetchKeySet(jwksUri: string): Promise<JsonWebKeySet> {
  const response = await fetch(jwksUri, {
    redirect: 'error',
    headers: { accept: 'application/jwk-set+json, application/json' },
    signal: AbortSignal.timeout(TIMEOUT_SECONDS * 1000),
  });
  if (!response.ok) throw new Error(`the key set answered HTTP ${response.status}`);
  const text = await response.text();
  if (text.length > MAX_KEY_SET_BYTES) throw new Error('the key set is larger than 256 KiB');
  const body = JSON.parse(text) as { keys?: unknown };
  if (!Array.isArray(body.keys)) throw new Error('the key set has no "keys" array');
  const keys = body.keys.filter(
    (key): key is Record<string, unknown> => typeof key === 'object' && key !== null && !Array.isArray(key),
  );
  return { keys };
}

/** The public facts of each key, for the key-set health snapshot. */
export function describeKeys(keySet: JsonWebKeySet): OidcKeyInfo[] {
  const text = (value: unknown) => (typeof value === 'string' ? value : null);
  return keySet.keys.map((key) => ({
    kid: text(key['kid']),
    kty: text(key['kty']) ?? 'unknown',
    alg: text(key['alg']),
    use: text(key['use']),
  }));
}

/** Keys a signature with `alg` can be checked with: the right key type, and no other alg or use named. */
export function usableKeyCount(keys: readonly OidcKeyInfo[], alg: OidcSigningAlgorithm): number {
  const kty = alg.startsWith('ES') ? 'EC' : alg === 'EdDSA' ? 'OKP' : 'RSA';
  return keys.filter(
    (key) =>
      key.kty === kty && (key.alg === null || key.alg === alg) && (key.use === null || key.use === 'sig'),
  ).length;
}

/**
 * openid-client configurations and key sets per provider, in memory. A configuration is used
 * while the provider row is unchanged (its updated_at), so an edit on any replica takes effect on
 * the next sign-in everywhere.
 */
@Injectable()
export class OidcClients {
  private readonly configs = new Map<string, { updatedAt: number; config: Promise<client.Configuration> }>();
  private readonly keySets = new Map<string, { fetchedAt: number; keySet: JsonWebKeySet }>();

  configFor(provider: ProviderClientSettings, clientSecret: string | null): Promise<client.Configuration> {
    const cached = this.configs.get(provider.id);
    if (cached && cached.updatedAt === provider.updated_at.getTime()) return cached.config;
    const config = discover(provider.issuer, provider.client_id, clientSecret, provider.id_token_signing_alg);
    this.configs.set(provider.id, { updatedAt: provider.updated_at.getTime(), config });
    // A failed discovery is not remembered: the next sign-in tries again.
    config.catch(() => {
      if (this.configs.get(provider.id)?.config === config) this.configs.delete(provider.id);
    });
    return config;
  }

  /**
   * The provider's key set for checking a token signed with key `kid`: the cached one, fetched
   * again when it lacks the kid and was fetched more than 30 s ago.
   */
  async keySetFor(
    provider: ProviderClientSettings,
    clientSecret: string | null,
    kid: string | undefined,
  ): Promise<JsonWebKeySet> {
    const cached = this.keySets.get(provider.id);
    const known = cached && (kid === undefined || cached.keySet.keys.some((key) => key['kid'] === kid));
    if (cached && (known || Date.now() - cached.fetchedAt < REFETCH_GAP_MS)) return cached.keySet;
    const config = await this.configFor(provider, clientSecret);
    const jwksUri = config.serverMetadata().jwks_uri;
    if (!jwksUri) throw new Error('the provider announces no jwks_uri');
    const keySet = await fetchKeySet(jwksUri);
    this.keySets.set(provider.id, { fetchedAt: Date.now(), keySet });
    return keySet;
  }

  forget(providerId: string): void {
    this.configs.delete(providerId);
    this.keySets.delete(providerId);
  }
}
