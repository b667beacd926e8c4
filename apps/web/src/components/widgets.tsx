import { ReactNode, useEffect, useRef } from 'react';
import { Link } from 'react-router';
import { ApiError } from '../api/client';
import { EXPIRY_WORDS, expiryLevel, relativeTime } from '../lib/time';

/** A time as words ("in 3 days") and, beside it, the exact time in UTC. */
export function Time({ value }: { value: string | null | undefined }) {
  if (!value) return <span className="muted">—</span>;
  const exact = new Date(value).toISOString();
  return (
    <time dateTime={value} title={exact}>
      {relativeTime(value, Date.now())}{' '}
      <span className="exact">{exact.slice(0, 16).replace('T', ' ')} UTC</span>
    </time>
  );
}

/** Expiry as colour and words (never colour alone); a revoked certificate says so instead. */
export function Expiry({ value, status }: { value: string | null; status?: string }) {
  const level = expiryLevel(value, Date.now());
  const revoked = status === 'Revoked';
  return (
    <span className={`expiry expiry-${revoked ? 'expired' : level}`}>
      <Time value={value} />{' '}
      <span className="expiry-words">({revoked ? 'revoked' : EXPIRY_WORDS[level]})</span>
    </span>
  );
}

export function StatusBadge({ status }: { status: string }) {
  return <span className={`badge badge-${status.toLowerCase()}`}>{status}</span>;
}

export function ErrorNotice({ error }: { error: unknown }) {
  if (!error) return null;
  // A conflict that counts what blocks it (an agent's targets and certificates) names the counts.
  const counts =
    error instanceof ApiError
      ? (error.details as { counts?: Record<string, number> } | undefined)?.counts
      : undefined;
  const blocking = counts
    ? ` Blocked by: ${Object.entries(counts)
        .map(([name, count]) => `${count} ${name}`)
        .join(', ')}.`
    : '';
  const text =
    error instanceof ApiError
      ? `${error.message} (${error.code}).${blocking}`
      : error instanceof Error
        ? error.message
        : String(error);
  return (
    <p role="alert" className="error">
      {text}
    </p>
  );
}

/** A modal confirmation: focus moves in, Escape or Close closes it without doing anything. */
export function ConfirmDialog(props: {
  title: string;
  children: ReactNode;
  confirmLabel: string;
  confirmDisabled?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const element = dialog.current;
    if (element && !element.open) element.showModal();
  }, []);
  return (
    <dialog ref={dialog} aria-labelledby="confirm-title" onCancel={props.onCancel} className="confirm">
      <h2 id="confirm-title">{props.title}</h2>
      {props.children}
      <div className="actions">
        <button type="button" onClick={props.onCancel}>
          Close
        </button>
        <button type="button" className="danger" disabled={props.confirmDisabled} onClick={props.onConfirm}>
          {props.confirmLabel}
        </button>
      </div>
    </dialog>
  );
}

export const REVOCATION_REASONS = [
  'unspecified',
  'keyCompromise',
  'caCompromise',
  'affiliationChanged',
  'superseded',
  'cessationOfOperation',
  'certificateHold',
  'privilegeWithdrawn',
  'aaCompromise',
] as const;
export type RevocationReason = (typeof REVOCATION_REASONS)[number];

/** The RFC 5280 reason menu; the GUI asks for a reason on every revocation. */
export function ReasonSelect({ value, onChange }: { value: string; onChange: (reason: string) => void }) {
  return (
    <>
      <label htmlFor="revocation-reason">Reason</label>
      <select
        id="revocation-reason"
        required
        value={value}
        onChange={(event) => onChange(event.target.value)}
      >
        <option value="">Choose a reason…</option>
        {REVOCATION_REASONS.map((reason) => (
          <option key={reason} value={reason}>
            {reason}
          </option>
        ))}
      </select>
    </>
  );
}

/** A number that links to its list; `null` when its source could not be read. */
export function Stat({
  label,
  value,
  to,
  testId,
}: {
  label: string;
  value: number | undefined | null;
  to: string;
  testId: string;
}) {
  return (
    <Link to={to} className="stat" data-testid={testId}>
      <span className="stat-value">{value === null ? '—' : (value ?? '…')}</span>
      <span className="stat-label">{label}</span>
    </Link>
  );
}
