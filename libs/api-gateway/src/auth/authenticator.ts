import { createHash } from 'node:crypto';
import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import {
  AuthenticateApiKeyRequest,
  AuthenticateApiKeyResponse,
  AuthenticateSessionRequest,
  AuthenticateSessionResponse,
  CertlaneError,
  DEFAULT_ROLES,
  ErrorCode,
  PERMISSIONS,
  Principal,
  SESSION_COOKIE,
} from '@certlane/contracts';
import {
  assertSupportedAuthType,
  CERTLANE_CONFIG,
  CertlaneConfig,
  MESSAGE_BUS,
  MessageBus,
} from '@certlane/platform';
import { Actor, NO_SCOPED_PERMISSIONS } from './actor';
import { ApiKeyVerifier, bearerToken } from './api-key-verifier';
import { PrincipalCache } from './principal-cache';
import { csrfTokenMatches, isStateChanging, readCookie } from './session-cookies';

const EVERY_PERMISSION: ReadonlySet<string> = new Set(PERMISSIONS);

export const DEMO_ACTOR_ID = 'actor-demo-anon';
export const AUTH_SECRET_ACTOR_ID = 'actor-service-auth-secret';

/** The header a 401 carries (RFC 6750). */
export const WWW_AUTHENTICATE = ['WWW-Authenticate', 'Bearer realm="certlane"'] as const;

/** What a request presents, read from its headers by whoever answers it (Nest or a fast lane). */
export interface Credentials {
  method: string;
  requestId: string;
  authorization?: string;
  cookie?: string;
  userAgent?: string;
  /** X-CSRF-Token. */
  csrfToken?: string;
  /**
   * `X-Certlane-Background: 1`: the client made this request on its own (a poll), so it does not
   * count as use of a session (the idle timeout). Only ever shortens a session.
   */
  background?: boolean;
}

/**
 * Who is calling. In api-key and oidc mode the bearer key is either SERVICE_AUTH_SECRET (an
 * admin), a named key, or a key stored by the auth service; without a bearer key, a
 * `service_session` cookie is checked by the auth service. Both answers are cached for seconds
 * and dropped when a revocation event arrives. A state-changing request authenticated by the
 * cookie must echo the CSRF token in X-CSRF-Token (403 otherwise); bearer requests are not
 * subject to CSRF. In none mode every request acts as actor-demo-anon. An unknown key or
 * session, or an auth service that does not answer, never lets a request through.
 */
@Injectable()
export class Authenticator implements OnApplicationBootstrap {
  private readonly verifier?: ApiKeyVerifier;
  /** SERVICE_API_KEYS_NAMED, by the SHA-256 of each key (the keys themselves are not kept). */
  private readonly namedKeys = new Map<string, Actor>();

  constructor(
    @Inject(CERTLANE_CONFIG) private readonly config: CertlaneConfig,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    /** Shared with the controllers that revoke, so this replica forgets at once. */
    private readonly principals: PrincipalCache,
  ) {
    assertSupportedAuthType(config.auth.type);
    if (config.auth.secret) this.verifier = new ApiKeyVerifier(config.auth.secret);
    for (const named of config.auth.namedKeys) {
      const permissions = new Set(named.roleIds.flatMap((role) => DEFAULT_ROLES[role]?.permissions ?? []));
      this.namedKeys.set(PrincipalCache.keyOf(named.key), {
        id: named.name,
        kind: 'api-key',
        admin: named.roleIds.includes('r-admin'),
        roleIds: named.roleIds,
        permissions,
        scopedPermissions: NO_SCOPED_PERMISSIONS,
      });
    }
  }

  /** Every gateway replica drops revoked keys and changed grants from its cache as events arrive. */
  async onApplicationBootstrap(): Promise<void> {
    // Revocations published while this replica was cut off from NATS were missed.
    this.bus.onReconnect(() => this.principals.clear());
    await this.bus.subscribe('auth.v1.api-key.revoked', async (event) =>
      this.principals.dropKey(event.data.id),
    );
    await this.bus.subscribe('auth.v1.session.revoked', async (event) =>
      this.principals.dropSession(event.data.id),
    );
    await this.bus.subscribe('auth.v1.grants.changed', async (event) => {
      if (event.data.role_id) this.principals.clear();
      else if (event.data.actor_id) this.principals.dropActor(event.data.actor_id);
    });
  }

  /**
   * The actor behind the request's credentials; CertlaneError `unauthenticated` (answer it with
   * WWW_AUTHENTICATE) when there are none or they are not valid, `csrf_token_invalid` for a
   * state-changing session request without the CSRF token.
   */
  async authenticate(request: Credentials): Promise<Actor> {
    if (this.config.auth.type === 'none') {
      return {
        id: DEMO_ACTOR_ID,
        kind: 'demo',
        admin: true,
        roleIds: ['r-admin'],
        permissions: EVERY_PERMISSION,
        scopedPermissions: NO_SCOPED_PERMISSIONS,
      };
    }
    const token = bearerToken(request.authorization);
    // One SHA-256 per request serves both the env-secret check and the cache lookup.
    const tokenDigest = token ? createHash('sha256').update(token, 'utf8').digest() : undefined;
    if (tokenDigest && this.verifier?.matchesHash(tokenDigest)) {
      return {
        id: AUTH_SECRET_ACTOR_ID,
        kind: 'service-secret',
        admin: true,
        roleIds: ['r-admin'],
        permissions: EVERY_PERMISSION,
        scopedPermissions: NO_SCOPED_PERMISSIONS,
      };
    }
    if (token && tokenDigest) {
      const keyHash = tokenDigest.toString('hex');
      const named = this.namedKeys.get(keyHash);
      if (named) return named;
      let principal = this.principals.get(keyHash);
      if (!principal) {
        const epoch = this.principals.epoch;
        const answer = await this.askApiKey(request, token, keyHash);
        if (answer.principal && this.principals.set(keyHash, answer.principal, Date.now(), undefined, epoch))
          principal = answer.principal;
      }
      if (principal) return toActor(principal);
    }
    const cookie = token ? undefined : readCookie(request.cookie, SESSION_COOKIE);
    if (cookie) {
      const actor = await this.sessionActor(request, cookie);
      if (actor) return actor;
    }
    throw new CertlaneError(
      ErrorCode.Unauthenticated,
      token
        ? 'the API key is not valid'
        : cookie
          ? 'the session is not valid'
          : 'this route needs an API key (Authorization: Bearer <key>) or a session cookie',
    );
  }

  /**
   * The actor of a session cookie, or undefined when the auth service does not know it. The
   * cache key covers the user agent when sessions are bound to it, so another agent is asked
   * about (and refused) rather than served from the cache. It also covers the background flag:
   * a user's request within the TTL of a poll's answer still reaches the auth service, which
   * records the use (a poll's answer recorded none).
   */
  private async sessionActor(request: Credentials, cookie: string): Promise<Actor | undefined> {
    if (cookie.startsWith('pl-')) return undefined;
    const userAgent = request.userAgent ?? '';
    const background = request.background === true;
    const cacheKey = PrincipalCache.keyOf(
      `session\0${cookie}\0${this.config.session.bindUserAgent ? userAgent : ''}\0${background ? 'bg' : ''}`,
    );
    let cached = this.principals.lookup(cacheKey);
    if (!cached) {
      const epoch = this.principals.epoch;
      const answer = await this.askSession(request, {
        cookie,
        user_agent: userAgent.slice(0, 2048),
        ...(background ? { background } : {}),
      });
      if (!answer.session) return undefined;
      cached = { principal: answer.session.principal, csrfTokenHash: answer.session.csrf_token_hash };
      if (!this.principals.set(cacheKey, cached.principal, Date.now(), cached.csrfTokenHash, epoch))
        return undefined;
    }
    if (isStateChanging(request.method) && !csrfTokenMatches(request.csrfToken, cached.csrfTokenHash ?? '')) {
      throw new CertlaneError(
        ErrorCode.CsrfTokenInvalid,
        'a state-changing request with a session cookie must echo the service_csrf cookie in X-CSRF-Token',
      );
    }
    return toActor(cached.principal);
  }

  /**
   * `auth.v1.authenticate-api-key` with the key's SHA-256, which is what the auth service looks
   * up: no usable key crosses the bus (ADR 0013 amendment). An auth service older than `key_hash`
   * refuses the field while a rolling upgrade runs; it is asked with the key then.
   */
  private askApiKey(
    request: Credentials,
    token: string,
    keyHash: string,
  ): Promise<AuthenticateApiKeyResponse> {
    const ask = (body: AuthenticateApiKeyRequest) =>
      this.bus.request('auth.v1.authenticate-api-key', body, { context: { request_id: request.requestId } });
    return ask({ key_hash: keyHash }).catch((error: unknown) => {
      if (!CertlaneError.refusesField(error, 'key_hash')) throw error;
      return ask({ key: token });
    });
  }

  /**
   * `auth.v1.authenticate-session`. An auth service older than the background flag refuses the
   * field (its contract forbids unknown ones) while a rolling upgrade runs: asked again without
   * it, the poll counts as use there, as it always did, rather than failing.
   */
  private async askSession(
    request: Credentials,
    payload: AuthenticateSessionRequest,
  ): Promise<AuthenticateSessionResponse> {
    const ask = (body: AuthenticateSessionRequest) =>
      this.bus.request('auth.v1.authenticate-session', body, {
        context: { request_id: request.requestId },
      });
    if (!payload.background) return ask(payload);
    return ask(payload).catch((error: unknown) => {
      if (!CertlaneError.refusesField(error, 'background')) throw error;
      return ask({ cookie: payload.cookie, user_agent: payload.user_agent });
    });
  }
}

/** Actors built from cached principals: built once per principal, not once per request. */
const actors = new WeakMap<Principal, Actor>();

function toActor(principal: Principal): Actor {
  let actor = actors.get(principal);
  if (!actor) {
    actor = buildActor(principal);
    actors.set(principal, actor);
  }
  return actor;
}

function buildActor(principal: Principal): Actor {
  return {
    id: principal.actor_id,
    kind: principal.actor_type === 'session' ? 'session' : 'api-key',
    sessionId: principal.session_id,
    admin: principal.admin,
    roleIds: principal.role_ids,
    permissions: new Set(principal.permissions),
    scopedPermissions: new Map(
      Object.entries(principal.scoped_permissions ?? {}).map(([scope, list]) => [scope, new Set(list)]),
    ),
  };
}
