import { api, ApiError } from '../api/client';
import { auth } from '../api/auth-store';
import { signOut } from './sign-in-actions';

/** The tab's storage, which the auth store clears on sign-out (no DOM in these tests). */
const storage = new Map<string, string>();
Object.assign(globalThis, {
  sessionStorage: {
    getItem: (key: string) => storage.get(key) ?? null,
    setItem: (key: string, value: string) => storage.set(key, value),
    removeItem: (key: string) => storage.delete(key),
  },
});

type Answer = Awaited<ReturnType<typeof api.POST>>;
const answered = (status: number, error?: unknown) =>
  ({ response: new Response(null, { status }), error, data: undefined }) as unknown as Answer;

describe('signOut of a session (POST /auth/logout)', () => {
  let post: jest.SpyInstance;

  beforeEach(() => {
    auth.signedIn('session', 'bg-admin');
    post = jest.spyOn(api, 'POST');
  });

  afterEach(() => post.mockRestore());

  it('signs out when the server ended the session (204)', async () => {
    post.mockResolvedValue(answered(204));
    await signOut();
    expect(post).toHaveBeenCalledWith('/auth/logout');
    expect(auth.get()).toEqual({ status: 'signed-out', reason: undefined });
  });

  it('stays signed in and says why when the server did not end it (503, a refused CSRF token)', async () => {
    post.mockResolvedValue(
      answered(503, { code: 'upstream_unavailable', message: 'the auth service did not answer' }),
    );
    const refusal = signOut();
    await expect(refusal).rejects.toBeInstanceOf(ApiError);
    await expect(refusal).rejects.toThrow(
      'Sign-out failed (503: the auth service did not answer): your session is still active. Try again.',
    );
    expect(auth.get()).toMatchObject({ status: 'signed-in', method: 'session' });

    post.mockResolvedValue(answered(403, { code: 'csrf_token_invalid', message: 'bad token' }));
    await expect(signOut()).rejects.toMatchObject({ status: 403, code: 'csrf_token_invalid' });
    expect(auth.get()).toMatchObject({ status: 'signed-in' });
  });

  it('stays signed in when the request never reached the server', async () => {
    post.mockRejectedValue(new TypeError('Failed to fetch'));
    await expect(signOut()).rejects.toThrow('Sign-out did not reach the server');
    expect(auth.get()).toMatchObject({ status: 'signed-in' });
  });

  it('goes on to the identity provider when the session came through OIDC (200 with end_session_url)', async () => {
    const url = 'https://idp.example.test/session/end?client_id=certlane';
    post.mockResolvedValue({
      response: new Response(null, { status: 200 }),
      error: undefined,
      data: { end_session_url: url },
    } as unknown as Answer);
    const left: string[] = [];
    await signOut((to) => left.push(to));
    expect(left).toEqual([url]);
  });

  it('signs out when the session had already ended (401)', async () => {
    post.mockResolvedValue(answered(401, { code: 'unauthenticated', message: 'the session is not valid' }));
    await signOut();
    expect(auth.get()).toMatchObject({ status: 'signed-out' });
  });
});
