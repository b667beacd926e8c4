/**
 * Who the GUI is signed in as (ADR 0052). An API key lives in sessionStorage only (gone with
 * the tab, never in localStorage); a break-glass (later OIDC) sign-in is the HttpOnly session
 * cookie, which scripts never see. `expire()` is what any 401 calls.
 */
export type AuthState =
  | { status: 'unknown' }
  | { status: 'signed-out'; reason?: string }
  | { status: 'signed-in'; method: 'api-key' | 'session' | 'open'; actorId: string };

const KEY_STORAGE = 'certlane.api-key';

let state: AuthState = { status: 'unknown' };
/** What GET /api/v1/auth/info reported at load (`oidc` shows single sign-on). */
let authType: string | undefined;
const listeners = new Set<() => void>();

function set(next: AuthState): void {
  state = next;
  for (const listener of listeners) listener();
}

export const auth = {
  get: (): AuthState => state,
  subscribe(listener: () => void): () => void {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
  apiKey: (): string | undefined => sessionStorage.getItem(KEY_STORAGE) ?? undefined,
  authType: (): string | undefined => authType,
  /** Set once at load, before the state leaves `unknown` (so the first render sees it). */
  setAuthType(type: string): void {
    authType = type;
  },
  signedInWithKey(key: string, actorId: string): void {
    sessionStorage.setItem(KEY_STORAGE, key);
    set({ status: 'signed-in', method: 'api-key', actorId });
  },
  signedIn(method: 'session' | 'open', actorId: string): void {
    set({ status: 'signed-in', method, actorId });
  },
  signedOut(reason?: string): void {
    sessionStorage.removeItem(KEY_STORAGE);
    set({ status: 'signed-out', reason });
  },
  /** A 401: the key was revoked or the session ended. */
  expire(): void {
    if (state.status === 'signed-out') return;
    auth.signedOut('Your sign-in is no longer valid. Sign in again.');
  },
};
