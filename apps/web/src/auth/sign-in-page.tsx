import { FormEvent, useState, useSyncExternalStore } from 'react';
import { Navigate, useLocation } from 'react-router';
import { ApiError } from '../api/client';
import { returnPath } from '../lib/return-path';
import { auth } from '../api/auth-store';
import { signInBreakGlass, signInWithKey } from './sign-in-actions';
import { OidcSection, oidcFailure } from './oidc-section';

function message(error: unknown): string {
  return error instanceof ApiError || error instanceof Error ? error.message : 'Sign-in failed.';
}

/**
 * Sign-in: an API key, a break-glass credential, and single sign-on when the API reports OIDC.
 * Each way is its own section.
 */
export function SignInPage() {
  const state = useSyncExternalStore(auth.subscribe, auth.get);
  const location = useLocation();
  const [key, setKey] = useState('');
  const [actorId, setActorId] = useState('');
  const [password, setPassword] = useState('');
  const [keyError, setKeyError] = useState<string>();
  const [breakGlassError, setBreakGlassError] = useState<string>();
  const [busy, setBusy] = useState(false);

  if (state.status === 'signed-in') {
    const from = (location.state as { from?: unknown } | null)?.from;
    return <Navigate to={returnPath(from, window.location.origin)} replace />;
  }

  const submitKey = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setKeyError(undefined);
    await signInWithKey(key.trim()).catch((error: unknown) => setKeyError(message(error)));
    setBusy(false);
  };
  const submitBreakGlass = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setBreakGlassError(undefined);
    await signInBreakGlass(actorId.trim(), password).catch((error: unknown) =>
      setBreakGlassError(message(error)),
    );
    setPassword('');
    setBusy(false);
  };

  return (
    <main className="sign-in">
      <h1>Sign in to Certlane</h1>
      {state.status === 'signed-out' && state.reason && (
        <p role="alert" className="notice">
          {state.reason}
        </p>
      )}
      {auth.authType() === 'oidc' && (
        <OidcSection
          provider={new URLSearchParams(location.search).get('provider') ?? ''}
          failure={oidcFailure(location.search)}
        />
      )}
      <section aria-labelledby="api-key-heading">
        <h2 id="api-key-heading">API key</h2>
        <form onSubmit={submitKey}>
          <label htmlFor="api-key">API key</label>
          <input
            id="api-key"
            name="api-key"
            type="password"
            autoComplete="off"
            required
            value={key}
            onChange={(event) => setKey(event.target.value)}
            aria-describedby={keyError ? 'api-key-error' : 'api-key-hint'}
          />
          <p id="api-key-hint" className="hint">
            Kept for this browser tab only.
          </p>
          {keyError && (
            <p id="api-key-error" role="alert" className="field-error">
              {keyError}
            </p>
          )}
          <button type="submit" disabled={busy}>
            Sign in with API key
          </button>
        </form>
      </section>
      <section aria-labelledby="break-glass-heading">
        <h2 id="break-glass-heading">Break-glass</h2>
        <form onSubmit={submitBreakGlass}>
          <label htmlFor="bg-actor">Actor id</label>
          <input
            id="bg-actor"
            required
            value={actorId}
            onChange={(event) => setActorId(event.target.value)}
          />
          <label htmlFor="bg-password">Password</label>
          <input
            id="bg-password"
            type="password"
            required
            autoComplete="current-password"
            value={password}
            onChange={(event) => setPassword(event.target.value)}
          />
          {breakGlassError && (
            <p role="alert" className="field-error">
              {breakGlassError}
            </p>
          )}
          <button type="submit" disabled={busy}>
            Sign in with break-glass
          </button>
        </form>
      </section>
    </main>
  );
}
