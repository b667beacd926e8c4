import { api, ApiError, unwrap } from '../api/client';
import { auth } from '../api/auth-store';
import { readCookie } from '../lib/cookies';

/**
 * On load: the API key of this tab if there is one, else the session cookie, else nothing. A
 * stale key or session ends in the sign-in page, never in a broken app.
 */
export async function restoreSignIn(): Promise<void> {
  try {
    const info = await unwrap(api.GET('/api/v1/auth/info'));
    auth.setAuthType(info.auth_type);
    if (!info.required) {
      const me = await unwrap(api.GET('/api/v1/auth/me'));
      return auth.signedIn('open', me.actor_id);
    }
    const key = auth.apiKey();
    // No key and no session (its script-readable CSRF cookie goes with it): a first visit, not
    // an ended sign-in, so no "no longer valid" message.
    if (!key && !readCookie(document.cookie, 'service_csrf')) return auth.signedOut();
    const me = await unwrap(api.GET('/api/v1/auth/me'));
    if (key) auth.signedInWithKey(key, me.actor_id);
    else auth.signedIn('session', me.actor_id);
  } catch {
    // A 401 already signed out with its reason; anything else: back to sign-in, quietly.
    if (auth.get().status === 'unknown') auth.signedOut();
  }
}

/** Checks the key against GET /auth/me before keeping it. */
export async function signInWithKey(key: string): Promise<void> {
  const response = await fetch('/api/v1/auth/me', { headers: { Authorization: `Bearer ${key}` } });
  if (response.status === 401) throw new ApiError(401, 'unauthenticated', 'That API key is not valid.');
  if (!response.ok) throw new ApiError(response.status, 'http_' + response.status, response.statusText);
  const me = (await response.json()) as { actor_id: string };
  auth.signedInWithKey(key, me.actor_id);
}

/** Break-glass (spec 5.7): the answer sets the session and CSRF cookies. */
export async function signInBreakGlass(actorId: string, password: string): Promise<void> {
  const result = await unwrap(
    api.POST('/auth/breakglass/login', { body: { actor_id: actorId, password } }),
  ).catch((error: unknown) => {
    if (error instanceof ApiError && error.status === 404)
      throw new ApiError(404, error.code, 'Break-glass sign-in is not enabled on this server.');
    throw error;
  });
  auth.signedIn('session', result.actor_id);
}

/**
 * Signs out. A session ends only when `POST /auth/logout` says so (204, or 200 for a session
 * opened through OIDC; a 401 says it had already ended): on any other answer, or none, the session
 * and its cookies are still there and a reload would sign back in, so the app stays signed in and
 * this rejects with why, for the user to try again. After an OIDC session the browser goes on to
 * the identity provider's end-session URL the answer names (RP-initiated logout), which sends it
 * back to the sign-in page.
 */
export async function signOut(
  leaveFor: (url: string) => void = (url) => window.location.assign(url),
): Promise<void> {
  const state = auth.get();
  if (state.status === 'signed-in' && state.method === 'session') {
    const answer = await api.POST('/auth/logout').catch(() => ({ error: undefined, response: undefined }));
    const response = answer.response;
    if (!response) {
      throw new ApiError(
        0,
        'network_error',
        'Sign-out did not reach the server: your session is still active. Try again.',
      );
    }
    if (!response.ok && response.status !== 401) {
      const body = (answer.error ?? {}) as { code?: string; message?: string };
      const why = body.message ? `: ${body.message}` : '';
      throw new ApiError(
        response.status,
        body.code ?? 'http_' + response.status,
        `Sign-out failed (${response.status}${why}): your session is still active. Try again.`,
      );
    }
    const endSessionUrl = response.status === 200 ? answer.data?.end_session_url : undefined;
    // The page is left as it is while the browser goes: the app's own sign-in page must not take
    // over (a route change) before the identity provider's page loads.
    if (endSessionUrl) return leaveFor(endSessionUrl);
  }
  auth.signedOut();
}
