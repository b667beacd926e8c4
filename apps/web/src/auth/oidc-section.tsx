import { FormEvent, useState } from 'react';

/**
 * What the OIDC callback reported when it sent the browser back here
 * (`/login?error=oidc_failed&reason=<category>`, spec 5.5), in words; undefined otherwise.
 */
export function oidcFailure(search: string): string | undefined {
  const query = new URLSearchParams(search);
  if (query.get('error') !== 'oidc_failed') return undefined;
  const reason = query.get('reason');
  return `Single sign-on did not complete${reason ? ` (${reason.replace(/[^\w.-]/g, '')})` : ''}. Try again, or use another way.`;
}

/** The gateway's OIDC login for a provider (spec 5.5): it redirects to the identity provider. */
export function oidcLoginHref(provider: string): string {
  return `/auth/oidc/login?provider=${encodeURIComponent(provider.trim())}`;
}

/**
 * Single sign-on, shown when the API reports `auth_type: oidc` (GET /api/v1/auth/info): a link to
 * the gateway's `/auth/oidc/login?provider=<id>` (spec 5.5), built from the provider field, which
 * redirects to the identity provider. The provider comes from the link an administrator shares
 * (`/login?provider=<id>`), since the list of providers is not public.
 *
 * A link, not a GET form: the CSP's `form-action 'self'` allows a form's submission, but Chromium
 * applies it to the submission's redirects too, so the 302 to an identity provider on another
 * origin was blocked (ADR 0064, amendment of the sixteenth stop). A followed link (or a
 * navigation by script) is not a form submission, and the CSP restricts neither. Enter in the
 * field navigates the same way; the form has no action and never submits.
 */
export function OidcSection({ provider, failure }: { provider: string; failure?: string }) {
  const [value, setValue] = useState(provider);
  const ready = value.trim() !== '';
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (ready) window.location.assign(oidcLoginHref(value));
  };
  return (
    <section aria-labelledby="oidc-heading">
      <h2 id="oidc-heading">Single sign-on</h2>
      {failure && (
        <p role="alert" className="field-error">
          {failure}
        </p>
      )}
      <form onSubmit={submit}>
        <label htmlFor="oidc-provider">Provider</label>
        <input
          id="oidc-provider"
          name="provider"
          required
          value={value}
          autoComplete="off"
          onChange={(event) => setValue(event.target.value)}
        />
        {ready ? (
          <a className="button" href={oidcLoginHref(value)}>
            Sign in with single sign-on
          </a>
        ) : (
          <a className="button" role="link" aria-disabled="true">
            Sign in with single sign-on
          </a>
        )}
      </form>
    </section>
  );
}
