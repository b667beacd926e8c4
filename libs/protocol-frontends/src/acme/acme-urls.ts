/** The default ACME profile: the spec 4.11 shorthands (`/acme/directory`...) serve it. */
export const DEFAULT_ACME_PROFILE = 'default';

/**
 * Where a request landed: the origin the client used, the profile (from `/acme/profile/{id}/`,
 * or the default for the shorthands) and the resource path after it.
 */
export interface AcmeLocation {
  origin: string;
  profile: string;
  /** True when the path named the profile (the URLs this server hands out keep that shape). */
  explicitProfile: boolean;
  /** The path after `/acme/` or `/acme/profile/{id}/`, e.g. `order/abc/finalize`. */
  resource: string;
}

const PROFILE_PATH = /^\/acme\/profile\/([A-Za-z0-9_-]{1,64})\/(.*)$/;

export function locate(origin: string, path: string): AcmeLocation | null {
  const profiled = PROFILE_PATH.exec(path);
  if (profiled) return { origin, profile: profiled[1], explicitProfile: true, resource: profiled[2] };
  if (!path.startsWith('/acme/')) return null;
  return {
    origin,
    profile: DEFAULT_ACME_PROFILE,
    explicitProfile: false,
    resource: path.slice('/acme/'.length),
  };
}

/** Builds the URLs of one profile's resources on the origin the client used. */
export class AcmeUrls {
  readonly base: string;

  constructor(readonly location: Pick<AcmeLocation, 'origin' | 'profile' | 'explicitProfile'>) {
    this.base = location.explicitProfile
      ? `${location.origin}/acme/profile/${location.profile}`
      : `${location.origin}/acme`;
  }

  url(resource: string): string {
    return `${this.base}/${resource}`;
  }
  directory = () => this.url('directory');
  account = (id: string) => this.url(`account/${id}`);
  accountOrders = (id: string) => this.url(`account/${id}/orders`);
  order = (id: string) => this.url(`order/${id}`);
  finalize = (id: string) => this.url(`order/${id}/finalize`);
  authz = (id: string) => this.url(`authz/${id}`);
  challenge = (id: string) => this.url(`challenge/${id}`);
  certificate = (id: string) => this.url(`cert/${id}`);

  /**
   * The account id a `kid` names: the path of an account URL, in either path shape (clients keep
   * the account URL they registered with even if they later use a profile's directory). The
   * origin is not compared: replicas and names in front of them differ, the account is the same,
   * and the signature is still checked with that account's key.
   */
  accountIdOf(kid: string): string | null {
    return accountIdOfUrl(kid);
  }
}

/** The account id an account URL names, by its path (see `AcmeUrls.accountIdOf`). */
export function accountIdOfUrl(url: string): string | null {
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch {
    return null;
  }
  const match = /^\/acme\/(?:profile\/[A-Za-z0-9_-]{1,64}\/)?account\/([A-Za-z0-9_-]{8,64})$/.exec(path);
  return match ? match[1] : null;
}

/**
 * The account id an `accounturi` parameter (RFC 8657 3, dns-persist-01) names: an `https` URL
 * with an authority (RFC 8657 5.4), written exactly as this server writes account URLs (compared
 * as a string, never normalized), else null: an unrecognised accounturi is unsatisfiable. Its
 * host is not compared, for the reason a `kid`'s is not (see `AcmeUrls.accountIdOf`).
 */
export function accountIdOfAccountUri(uri: string): string | null {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return null;
  }
  const plain = url.protocol === 'https:' && url.host !== '' && !url.username && !url.password;
  if (!plain || url.search || url.hash || url.href !== uri) return null;
  return accountIdOfUrl(uri);
}
