import createClient, { type Middleware } from 'openapi-fetch';
import type { components, paths } from '@certlane/api-client/types';
import { isStateChanging, readCookie } from '../lib/cookies';
import { activity, BACKGROUND_HEADER } from '../lib/user-activity';
import { auth } from './auth-store';

export type Schemas = components['schemas'];

/** An API error answer (docs/errors.md): the status and the error body's code and message. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
  }
}

/**
 * Every call: the API key as a bearer token when signed in with one; otherwise the session
 * cookie goes by itself and state-changing calls echo the CSRF cookie in X-CSRF-Token (spec 5.4).
 * A call made with no user input lately is marked as background work, which does not keep a
 * session from ending when idle (lib/user-activity.ts). A 401 anywhere signs out, so the app
 * returns to sign-in instead of breaking.
 */
const credentials: Middleware = {
  onRequest({ request }) {
    if (activity.idle()) request.headers.set(BACKGROUND_HEADER, '1');
    const key = auth.apiKey();
    if (key) request.headers.set('Authorization', `Bearer ${key}`);
    else if (isStateChanging(request.method)) {
      const csrf = readCookie(document.cookie, 'service_csrf');
      if (csrf) request.headers.set('X-CSRF-Token', csrf);
    }
    return request;
  },
  onResponse({ response, request }) {
    if (response.status === 401 && !new URL(request.url).pathname.startsWith('/auth/breakglass/')) {
      auth.expire();
    }
    return response;
  },
};

// The page's own origin (ADR 0038); empty where there is no page (render tests), never used there.
export const api = createClient<paths>({
  baseUrl: typeof window === 'undefined' ? '' : window.location.origin,
  credentials: 'same-origin',
});
api.use(credentials);

/** The data of an openapi-fetch answer, or an ApiError with the API's code and message. */
export async function unwrap<T>(
  call: Promise<{ data?: T; error?: unknown; response: Response }>,
): Promise<T> {
  const { data, error, response } = await call;
  if (error !== undefined || !response.ok) {
    const body = (error ?? {}) as { code?: string; message?: string; details?: unknown };
    throw new ApiError(
      response.status,
      body.code ?? 'http_' + response.status,
      body.message ?? response.statusText,
      body.details,
    );
  }
  return data as T;
}
