import {
  AuthRuntimeConfig,
  BREAKGLASS_RATE_LIMIT,
  OIDC_PENDING_LOGINS_PER_IP,
  OIDC_PRELOGIN_SECONDS,
  PageQuery,
  SESSION_LIFETIME_SECONDS,
} from '@certlane/contracts';
import { GatewayFacts, declareAnsweredRoute, declareRoute } from '../routes/route-declaration';

const USERS = '/api/v1/auth/users';

/** The non-secret auth settings this gateway runs with (every process reads the same variables). */
function runtimeConfig(_input: unknown, { config }: GatewayFacts): AuthRuntimeConfig {
  const { auth, session, breakGlass, oidc, trustedProxies } = config;
  return {
    auth_type: auth.type,
    demo_mode: auth.type === 'none',
    session: {
      samesite: session.sameSite,
      lifetime_seconds: SESSION_LIFETIME_SECONDS,
      idle_timeout_seconds: session.idleTimeoutMs / 1000,
      bind_user_agent: session.bindUserAgent,
      gc_interval_seconds: session.gcIntervalMs / 1000,
      signing_secret_source: session.dedicatedSecret
        ? 'SERVICE_SESSION_SECRET'
        : 'SERVICE_CONFIG_ENCRYPTION_KEY',
    },
    breakglass: {
      enabled: breakGlass.enabled,
      lockout_threshold: breakGlass.lockoutThreshold,
      rate_limit: {
        attempts: BREAKGLASS_RATE_LIMIT.attempts,
        window_seconds: BREAKGLASS_RATE_LIMIT.windowSeconds,
      },
    },
    oidc: {
      prelogin_require_user_agent: oidc.preloginRequireUa,
      prelogin_require_ip: oidc.preloginRequireIp,
      prelogin_lifetime_seconds: OIDC_PRELOGIN_SECONDS,
      pending_logins_per_ip: OIDC_PENDING_LOGINS_PER_IP,
      back_channel_logout_max_age_seconds: oidc.bclMaxAgeSeconds,
    },
    trusted_proxies: [...trustedProxies],
  };
}

/**
 * Users (spec 4.10; docs/decisions/0018-break-glass-and-users.md), served by the auth service, and
 * the auth settings and demo-residual cleanup (auth.role.assign). A deactivated user leaves the
 * gateway's principal cache at once.
 */
export const USER_ROUTES = [
  declareRoute({
    method: 'GET',
    path: USERS,
    permission: 'auth.user.read',
    status: 200,
    errors: [400, 401, 403],
    subject: 'auth.v1.list-users',
    query: PageQuery,
    response: 'Page<UserDto>',
    audit: null,
    payload: ({ query }) => query,
  }),
  /**
   * Deactivates a user and revokes its sessions and API keys at once; 409 on oneself, 403 for a
   * non-admin deactivating an admin.
   */
  declareRoute({
    method: 'DELETE',
    path: `${USERS}/:id`,
    permission: 'auth.user.deactivate',
    status: 200,
    errors: [401, 403, 404, 409],
    subject: 'auth.v1.deactivate-user',
    response: 'UserDeactivated',
    audit: 'auth.user_deactivated',
    evicts: 'actor',
    payload: ({ params, actor }) => ({ actor_id: params.id, caller_admin: actor?.admin ?? false }),
  }),
  declareRoute({
    method: 'POST',
    path: `${USERS}/:id/reactivate`,
    permission: 'auth.user.deactivate',
    status: 200,
    errors: [401, 403, 404],
    subject: 'auth.v1.reactivate-user',
    response: 'UserDto',
    audit: 'auth.user_reactivated',
    payload: ({ params }) => ({ actor_id: params.id }),
  }),
  declareAnsweredRoute({
    method: 'GET',
    path: '/api/v1/auth/runtime-config',
    permission: 'auth.role.assign',
    status: 200,
    errors: [401, 403],
    response: 'AuthRuntimeConfig',
    audit: null,
    answer: runtimeConfig,
  }),
  /** Removes what demo mode left behind (ADR 0018); 503 while the system runs in demo mode. */
  declareRoute({
    method: 'POST',
    path: '/api/v1/auth/demo-residual/cleanup',
    permission: 'auth.role.assign',
    status: 200,
    errors: [401, 403, 503],
    subject: 'auth.v1.cleanup-demo-residual',
    response: 'DemoResidualRemoved',
    audit: 'auth.demo_residual_cleaned',
    payload: () => ({}),
  }),
];
