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

/**
 * Single sign-on, shown when the API reports `auth_type: oidc` (GET /api/v1/auth/info): a plain
 * GET form to the gateway's `/auth/oidc/login?provider=<id>` (spec 5.5), which redirects to the
 * identity provider. The provider comes from the link an administrator shares
 * (`/login?provider=<id>`), since the list of providers is not public.
 *
 * Not ready for that redirect: the CSP's `form-action 'self'` allows the submission, but Chromium
 * applies it to the submission's redirects too, so the 302 to an identity provider on another
 * origin is blocked. When the OIDC routes are built this must become a link built from the
 * provider field (ADR 0064, amendment of the sixteenth stop).
 */
export function OidcSection({ provider, failure }: { provider: string; failure?: string }) {
  return (
    <section aria-labelledby="oidc-heading">
      <h2 id="oidc-heading">Single sign-on</h2>
      {failure && (
        <p role="alert" className="field-error">
          {failure}
        </p>
      )}
      <form method="get" action="/auth/oidc/login">
        <label htmlFor="oidc-provider">Provider</label>
        <input id="oidc-provider" name="provider" required defaultValue={provider} autoComplete="off" />
        <button type="submit">Sign in with single sign-on</button>
      </form>
    </section>
  );
}
