import { Inject, Injectable } from '@nestjs/common';
import {
  BeginOidcLoginCommand,
  CertlaneError,
  ErrorCode,
  CompleteOidcLoginCommand,
  OIDC_PENDING_LOGINS_PER_IP,
  OIDC_PRELOGIN_SECONDS,
  OidcBackChannelLogoutCommand,
  OidcBackChannelLogoutResult,
  OidcFailureReason,
  OidcLoginBegun,
  OidcLoginCompleted,
} from '@certlane/contracts';
import {
  CERTLANE_CONFIG,
  CertlaneConfig,
  CertlaneLogger,
  LOGGER,
  outboxToken,
  ServiceOutbox,
} from '@certlane/platform';
import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, JWTPayload, jwtVerify } from 'jose';
import { randomBytes } from 'node:crypto';
import * as client from 'openid-client';
import { authAudit, AuthCaller } from '../audit/auth-audit';
import { PRELOGIN_COOKIE_PREFIX, sha256Hex } from '../sessions/session-cookie';
import { SessionService } from '../sessions/session.service';
import { UserRepository } from '../users/user.repository';
import { describeFailure, OidcAdminService } from './oidc-admin.service';
import { OidcClients } from './oidc-clients';
import { OidcProviderRow, OidcRepository } from './oidc.repository';
import {
  emailAdmitted,
  groupsOf,
  logoutTokenProblem,
  oidcActorId,
  postLogoutRedirectUri,
  rolesForGroups,
} from './oidc-rules';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const SYSTEM: AuthCaller = { actorId: 'system' };
const LOGOUT_TOKEN_TYPES = new Set(['logout+jwt', 'application/logout+jwt', 'jwt']);

class LoginFailure extends Error {
  constructor(
    readonly reason: OidcFailureReason,
    readonly detail: string,
    readonly providerId?: string,
  ) {
    super(detail);
  }
}

/**
 * The OIDC sign-in (spec 5.5; ADR 0081): the authorization code flow with PKCE S256, state and
 * nonce through openid-client (which checks the `iss` response parameter, the ID token's
 * signature against the provider's key set, its algorithm against the one configured, issuer,
 * audience and expiry), the email-domain allowlist, group claim to roles, and a session; and
 * back-channel logout. Every outcome is audited; the browser learns only a failure category.
 */
@Injectable()
export class OidcLoginService {
  constructor(
    private readonly repository: OidcRepository,
    private readonly admin: OidcAdminService,
    private readonly clients: OidcClients,
    private readonly sessions: SessionService,
    private readonly users: UserRepository,
    @Inject(CERTLANE_CONFIG) private readonly config: CertlaneConfig,
    @Inject(outboxToken('auth')) private readonly outbox: ServiceOutbox,
    @Inject(LOGGER) private readonly logger: CertlaneLogger,
  ) {}

  async begin(command: BeginOidcLoginCommand, requestId?: string): Promise<OidcLoginBegun> {
    if ((await this.repository.pendingLoginsFrom(command.client_ip)) >= OIDC_PENDING_LOGINS_PER_IP) {
      throw new CertlaneError(
        ErrorCode.RateLimited,
        `too many sign-ins pending from this address: at most ${OIDC_PENDING_LOGINS_PER_IP} in ${OIDC_PRELOGIN_SECONDS} s`,
        { retry_after_seconds: 60 },
      );
    }
    try {
      const provider = await this.enabledProvider(command.provider);
      const config = await this.configOf(provider);
      const codeVerifier = client.randomPKCECodeVerifier();
      const state = client.randomState();
      const nonce = client.randomNonce();
      const url = client.buildAuthorizationUrl(config, {
        redirect_uri: provider.redirect_uri,
        scope: provider.scopes.join(' '),
        code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
        code_challenge_method: 'S256',
        state,
        nonce,
      });
      const pendingCookie = `${PRELOGIN_COOKIE_PREFIX}${randomBytes(32).toString('base64url')}`;
      await this.repository.insertPrelogin(
        sha256Hex(pendingCookie),
        {
          provider_id: provider.id,
          state,
          nonce,
          code_verifier: codeVerifier,
          user_agent_hash: sha256Hex(command.user_agent ?? ''),
          client_ip: command.client_ip,
        },
        OIDC_PRELOGIN_SECONDS,
      );
      return { ok: true, redirect_url: url.href, pending_cookie: pendingCookie };
    } catch (error) {
      return { ok: false, reason: await this.failed(error, command.client_ip, requestId) };
    }
  }

  async complete(command: CompleteOidcLoginCommand, requestId?: string): Promise<OidcLoginCompleted> {
    try {
      return { ok: true, ...(await this.signIn(command, requestId)) };
    } catch (error) {
      return { ok: false, reason: await this.failed(error, command.client_ip, requestId) };
    }
  }

  private async signIn(command: CompleteOidcLoginCommand, requestId?: string) {
    const cookie = command.pending_cookie ?? '';
    if (!cookie.startsWith(PRELOGIN_COOKIE_PREFIX)) {
      throw new LoginFailure('prelogin_invalid', 'no pending login cookie');
    }
    const prelogin = await this.repository.takePrelogin(sha256Hex(cookie));
    if (!prelogin) throw new LoginFailure('prelogin_invalid', 'pending login unknown, used or expired');
    if (
      this.config.oidc.preloginRequireUa &&
      sha256Hex(command.user_agent ?? '') !== prelogin.user_agent_hash
    ) {
      throw new LoginFailure(
        'prelogin_invalid',
        'User-Agent differs from the login start',
        prelogin.provider_id,
      );
    }
    if (this.config.oidc.preloginRequireIp && command.client_ip !== prelogin.client_ip) {
      throw new LoginFailure(
        'prelogin_invalid',
        'client IP differs from the login start',
        prelogin.provider_id,
      );
    }
    const query = new URLSearchParams(command.callback_query);
    if (query.has('error')) {
      throw new LoginFailure(
        'idp_error',
        `the identity provider answered ${query.get('error')!.slice(0, 64)}`,
        prelogin.provider_id,
      );
    }
    const provider = await this.enabledProvider(prelogin.provider_id);
    const config = await this.configOf(provider);
    const callbackUrl = new URL(provider.redirect_uri);
    callbackUrl.search = query.toString();
    let claims: Record<string, unknown>;
    try {
      const tokens = await client.authorizationCodeGrant(config, callbackUrl, {
        pkceCodeVerifier: prelogin.code_verifier,
        expectedState: prelogin.state,
        expectedNonce: prelogin.nonce,
        idTokenExpected: true,
      });
      claims = { ...tokens.claims() };
    } catch (error) {
      throw new LoginFailure('token_invalid', describeFailure(error), provider.id);
    }
    const subject = claims['sub'] as string;
    if (!emailAdmitted(claims, provider.allowed_email_domains)) {
      throw new LoginFailure(
        'email_not_allowed',
        'the email is not verified or not of an allowed domain',
        provider.id,
      );
    }
    const groups = groupsOf(claims, provider.group_claim);
    const { roles, unmapped } = rolesForGroups(groups, await this.repository.mappingsOf(provider.id));
    const actorId = oidcActorId(provider.issuer, subject);
    const caller: AuthCaller = { actorId, requestId };
    const resource = { type: 'oidc_provider', id: provider.id };
    const email = typeof claims['email'] === 'string' ? (claims['email'] as string).slice(0, 320) : null;
    const sid = typeof claims['sid'] === 'string' ? (claims['sid'] as string).slice(0, 256) : null;

    const opened = await this.repository.transaction(async (manager) => {
      if (!(await this.users.isActive(manager, actorId))) {
        throw new LoginFailure('user_deactivated', `${actorId} is deactivated`, provider.id);
      }
      await this.repository.recordIdentity(manager, {
        providerId: provider.id,
        subject,
        actorId,
        email,
        roles,
      });
      if (!(await this.repository.actorHasRoles(manager, actorId))) {
        throw new LoginFailure('no_role', `no group maps to a role and ${actorId} holds none`, provider.id);
      }
      const session = await this.sessions.open(manager, {
        actorId,
        method: 'oidc',
        clientIp: command.client_ip,
        userAgent: command.user_agent,
        oidc: { providerId: provider.id, subject, sid },
      });
      if (unmapped.length > 0) {
        await this.outbox.audit(
          manager,
          authAudit('auth.oidc_login_unmapped_groups', caller, resource, 'success', {
            unmapped_groups: unmapped.slice(0, 50),
          }),
        );
      }
      await this.outbox.audit(
        manager,
        authAudit('auth.oidc_login_succeeded', caller, resource, 'success', {
          session_id: session.sessionId,
          roles,
          client_ip: command.client_ip,
        }),
      );
      return session;
    });
    return {
      actor_id: actorId,
      session_id: opened.sessionId,
      expires_at: opened.expiresAt,
      csrf_token: opened.csrfToken,
      session_cookie: opened.cookie,
    };
  }

  /**
   * A logout token (OpenID Connect Back-Channel Logout 1.0 2.4-2.6): signed by a provider of its
   * issuer with the provider's algorithm, for its client, fresh, unseen, the logout event, exactly
   * one of sub and sid, no nonce. The sessions it names are revoked.
   */
  async backChannelLogout(
    command: OidcBackChannelLogoutCommand,
    requestId?: string,
  ): Promise<OidcBackChannelLogoutResult> {
    const caller: AuthCaller = { ...SYSTEM, requestId };
    let providerId: string | undefined;
    try {
      const { payload, provider } = await this.verifiedLogoutToken(command.logout_token);
      providerId = provider.id;
      const problem = logoutTokenProblem(
        payload,
        Math.floor(Date.now() / 1000),
        this.config.oidc.bclMaxAgeSeconds,
      );
      if (problem) throw new Error(problem);
      const revoked = await this.repository.transaction(async (manager) => {
        const fresh = await this.repository.rememberLogoutToken(
          manager,
          provider.id,
          payload.jti as string,
          this.config.oidc.bclMaxAgeSeconds + 120,
        );
        if (!fresh) throw new Error('jti already used');
        const by =
          typeof payload['sid'] === 'string' ? { sid: payload['sid'] } : { subject: payload.sub as string };
        const count = await this.sessions.revokeOidc(manager, provider.id, by);
        await this.outbox.audit(
          manager,
          authAudit(
            'auth.oidc_back_channel_logout',
            caller,
            { type: 'oidc_provider', id: provider.id },
            'success',
            {
              sessions_revoked: count,
              by: 'sid' in by ? 'sid' : 'sub',
              client_ip: command.client_ip,
            },
          ),
        );
        return count;
      });
      return { ok: true, sessions_revoked: revoked };
    } catch (error) {
      await this.repository.transaction((manager) =>
        this.outbox.audit(
          manager,
          authAudit(
            'auth.oidc_back_channel_logout_failed',
            caller,
            { type: 'oidc_provider', id: providerId ?? 'unknown' },
            'failure',
            { reason: describeFailure(error), client_ip: command.client_ip },
          ),
        ),
      );
      return { ok: false, sessions_revoked: 0 };
    }
  }

  private async verifiedLogoutToken(
    token: string,
  ): Promise<{ payload: JWTPayload; provider: OidcProviderRow }> {
    const header = decodeProtectedHeader(token);
    if (typeof header.typ === 'string' && !LOGOUT_TOKEN_TYPES.has(header.typ.toLowerCase())) {
      throw new Error(`typ ${header.typ} is not a logout token`);
    }
    const claimed = decodeJwt(token);
    if (typeof claimed.iss !== 'string') throw new Error('iss missing');
    const audiences = Array.isArray(claimed.aud) ? claimed.aud : [claimed.aud];
    const candidates = (await this.repository.providersOfIssuer(claimed.iss)).filter(
      (provider) => provider.enabled && audiences.includes(provider.client_id),
    );
    if (candidates.length === 0) throw new Error('no enabled provider has this issuer and audience');
    let lastError: unknown;
    for (const provider of candidates) {
      try {
        const keySet = await this.clients.keySetFor(
          provider,
          this.admin.clientSecretOf(provider),
          header.kid,
        );
        const { payload } = await jwtVerify(token, createLocalJWKSet(keySet as never), {
          issuer: provider.issuer,
          audience: provider.client_id,
          algorithms: [provider.id_token_signing_alg],
        });
        return { payload, provider };
      } catch (error) {
        lastError = error;
      }
    }
    throw lastError;
  }

  /**
   * OpenID Connect RP-Initiated Logout 1.0 (ADR 0081 amendment): where a browser signing out of a
   * session opened through `providerId` goes next, the identity provider's end_session_endpoint
   * with `client_id` and `post_logout_redirect_uri` (the GUI's sign-in page beside the callback,
   * which the operator registers there). No id_token_hint: ID tokens are not kept, and the
   * specification takes `client_id` instead. Null when the provider is gone or disabled, or its
   * identity provider announces no such endpoint or cannot be reached (the sign-out here stands).
   */
  async endSessionUrl(providerId: string): Promise<string | null> {
    const provider = await this.repository.findProvider(providerId);
    if (!provider?.enabled) return null;
    try {
      const config = await this.clients.configFor(provider, this.admin.clientSecretOf(provider));
      if (!config.serverMetadata().end_session_endpoint) return null;
      return client.buildEndSessionUrl(config, {
        post_logout_redirect_uri: postLogoutRedirectUri(provider.redirect_uri),
      }).href;
    } catch (error) {
      this.logger.warn(
        { provider_id: provider.id, error: describeFailure(error) },
        'OIDC provider unreachable: signed out here only',
      );
      return null;
    }
  }

  private async enabledProvider(id: string): Promise<OidcProviderRow> {
    const provider = UUID.test(id) ? await this.repository.findProvider(id) : undefined;
    if (!provider || !provider.enabled) {
      throw new LoginFailure(
        'provider_unknown',
        `no enabled OIDC provider ${JSON.stringify(id.slice(0, 128))}`,
      );
    }
    return provider;
  }

  private async configOf(provider: OidcProviderRow): Promise<client.Configuration> {
    try {
      return await this.clients.configFor(provider, this.admin.clientSecretOf(provider));
    } catch (error) {
      throw new LoginFailure('provider_unavailable', describeFailure(error), provider.id);
    }
  }

  /** Audits a failed sign-in with its detail and answers only the category. */
  private async failed(error: unknown, clientIp: string, requestId?: string): Promise<OidcFailureReason> {
    if (!(error instanceof LoginFailure)) throw error;
    await this.repository.transaction((manager) =>
      this.outbox.audit(
        manager,
        authAudit(
          'auth.oidc_login_failed',
          { actorId: 'anonymous', requestId },
          { type: 'oidc_provider', id: error.providerId ?? 'unknown' },
          'failure',
          { reason: error.reason, detail: error.detail, client_ip: clientIp },
        ),
      ),
    );
    return error.reason;
  }
}
