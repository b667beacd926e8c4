import { Transform } from 'class-transformer';
import { IsBoolean, IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';
import { PageQuery } from '../pagination/page';
import { Principal } from './auth.dto';

/** Cookie names and lifetime of browser sessions (spec 5.4, 8). */
export const SESSION_COOKIE = 'service_session';
export const CSRF_COOKIE = 'service_csrf';
export const CSRF_HEADER = 'x-csrf-token';
/**
 * Sent (value `1`) by a client on requests its user did not make (a poll): they do not keep a
 * session from ending when idle (ADR 0017 amendment).
 */
export const BACKGROUND_HEADER = 'x-certlane-background';
export const SESSION_LIFETIME_SECONDS = 8 * 3600;

/** Session ids: 128 random bits as 32 hex characters. */
export const SESSION_ID_PATTERN = /^[0-9a-f]{32}$/;

/** How a session was opened. OIDC sessions arrive with the OIDC flow (spec 5.5). */
export type SessionMethod = 'breakglass' | 'oidc';

/** The gateway asks the auth service who a session cookie belongs to. */
export class AuthenticateSessionRequest {
  @IsString()
  @IsNotEmpty()
  @MaxLength(512)
  cookie!: string;

  @IsOptional()
  @IsString()
  @MaxLength(2048)
  user_agent?: string;

  /**
   * True when the client marked the request as its own background work (a poll), not something
   * its user did: the session is checked as always but not counted as used, so it still ends when
   * idle. A client can only shorten its session this way, never extend it (ADR 0017 amendment).
   */
  @IsOptional()
  @IsBoolean()
  background?: boolean;
}

/**
 * A valid session: the caller's principal plus what the gateway needs to check CSRF. The
 * SHA-256 of the CSRF token stays in gateway memory; it never reaches an HTTP response.
 */
export interface AuthenticatedSession {
  principal: Principal;
  session_id: string;
  csrf_token_hash: string;
  expires_at: string;
}

export interface AuthenticateSessionResponse {
  session: AuthenticatedSession | null;
}

/** A session as the API shows it: no cookie, MAC, CSRF token or hash. */
export interface SessionDto {
  id: string;
  actor_id: string;
  method: SessionMethod;
  client_ip: string;
  created_at: string;
  last_seen_at: string;
  expires_at: string;
  /** True for the session the request itself came with. */
  current: boolean;
}

const toBoolean = ({ value }: { value: unknown }): unknown =>
  value === 'true' ? true : value === 'false' ? false : value;

/** GET /api/v1/auth/sessions: `?all=true` lists every actor's sessions (auth.session.list.all). */
export class ListSessionsQuery extends PageQuery {
  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean({ message: 'all must be true or false' })
  all?: boolean;
}

export class ListSessionsCommand extends ListSessionsQuery {
  @IsString()
  @IsNotEmpty()
  actor_id!: string;

  @IsOptional()
  @IsString()
  current_session_id?: string;
}

export class RevokeSessionCommand {
  @IsString()
  @IsNotEmpty()
  @MaxLength(128)
  id!: string;

  /** The caller; its own sessions it may always revoke. */
  @IsString()
  @IsNotEmpty()
  actor_id!: string;

  /** The caller holds auth.session.revoke (decided by the gateway from its permissions). */
  @IsBoolean()
  may_revoke_others!: boolean;
}

export class RevokeOtherSessionsCommand {
  @IsString()
  @IsNotEmpty()
  actor_id!: string;

  /** The session the request came with, kept; absent for API-key callers (all are revoked). */
  @IsOptional()
  @IsString()
  keep_session_id?: string;
}

export interface SessionsRevoked {
  revoked: number;
}

/** POST /auth/logout: the gateway hands over the cookie and the echoed CSRF token. */
export class LogoutCommand extends AuthenticateSessionRequest {
  @IsOptional()
  @IsString()
  @MaxLength(256)
  csrf_token?: string;
}

export interface LoggedOut {
  session_id: string;
  actor_id: string;
  /**
   * For a session opened through an OIDC provider whose identity provider announces an
   * `end_session_endpoint`: where the browser goes next to end its session there too (OpenID
   * Connect RP-Initiated Logout 1.0; ADR 0081 amendment).
   */
  end_session_url?: string;
}

/** POST /auth/logout's 200 body: the session ended here; the identity provider's is next. */
export interface OidcEndSession {
  end_session_url: string;
}

/** Event: a session ended before its time; gateways drop it from their caches. */
export interface SessionRevoked {
  id: string;
  actor_id: string;
}

export const SESSION_SAMESITE_VALUES = ['Lax', 'Strict'] as const;

/** GET /api/v1/auth/runtime-config: the non-secret auth settings in effect (read by the gateway). */
export interface AuthRuntimeConfig {
  auth_type: 'api-key' | 'oidc' | 'none';
  demo_mode: boolean;
  session: {
    samesite: (typeof SESSION_SAMESITE_VALUES)[number];
    lifetime_seconds: number;
    idle_timeout_seconds: number;
    bind_user_agent: boolean;
    gc_interval_seconds: number;
    signing_secret_source: 'SERVICE_SESSION_SECRET' | 'SERVICE_CONFIG_ENCRYPTION_KEY';
  };
  breakglass: {
    enabled: boolean;
    lockout_threshold: number;
    rate_limit: { attempts: number; window_seconds: number };
  };
  /** OIDC sign-in (ADR 0081); the providers themselves are at /api/v1/auth/oidc/providers. */
  oidc: {
    prelogin_require_user_agent: boolean;
    prelogin_require_ip: boolean;
    prelogin_lifetime_seconds: number;
    pending_logins_per_ip: number;
    back_channel_logout_max_age_seconds: number;
  };
  trusted_proxies: string[];
}
