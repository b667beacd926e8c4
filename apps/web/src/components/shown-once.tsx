import { useEffect, useState } from 'react';
import { useLocation } from 'react-router';

/** A secret the API returns once (a new API key, an EAB HMAC key, an EST key-encryption key). */
export interface OnceSecret {
  /** What it is, in words. */
  label: string;
  value: string;
}

/** The secret of an answer that carries one for its only showing, or undefined. */
export function onceSecret(answer: unknown): OnceSecret | undefined {
  if (!answer || typeof answer !== 'object') return undefined;
  const body = answer as Record<string, unknown>;
  if (typeof body.key === 'string') return { label: 'The new API key', value: body.key };
  if (typeof body.hmac_key === 'string')
    return { label: `The HMAC key of EAB key ${String(body.id)}`, value: body.hmac_key };
  if (typeof body.secret_key === 'string')
    return { label: `The AES-256 key of key-encryption key ${String(body.id)}`, value: body.secret_key };
  return undefined;
}

/**
 * Holds a shown-once secret until the user dismisses it or leaves (any navigation, this page's
 * filters and paging included, or unmounting): it is never kept in the page longer than needed
 * to copy it.
 */
export function useOnceSecret(): [OnceSecret | undefined, (secret: OnceSecret | undefined) => void] {
  const [secret, setSecret] = useState<OnceSecret>();
  const location = useLocation();
  useEffect(() => setSecret(undefined), [location.key]);
  return [secret, setSecret];
}

/** The secret in a box of its own, with Copy and a dismissal that removes it from the page. */
export function ShownOnce({ secret, onDismiss }: { secret: OnceSecret; onDismiss: () => void }) {
  const [copied, setCopied] = useState<string>();
  return (
    <section className="shown-once" aria-label="Shown only now">
      <p>{secret.label}, shown only now: copy it and store it safely. It cannot be shown again.</p>
      <code className="long-text" data-testid="shown-once-value">
        {secret.value}
      </code>
      <div className="actions">
        <button
          type="button"
          onClick={() => {
            const refused = () => setCopied('Copying was refused: select the value and copy it.');
            // No clipboard outside a secure context.
            if (!navigator.clipboard) return refused();
            navigator.clipboard.writeText(secret.value).then(() => setCopied('Copied.'), refused);
          }}
        >
          Copy
        </button>
        <button type="button" onClick={onDismiss}>
          I have stored it
        </button>
        {copied && <span role="status">{copied}</span>}
      </div>
    </section>
  );
}
