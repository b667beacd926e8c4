import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';
import { Row, RowAction, rowName } from '../pages/resource-pages';
import { ConfirmDialog, ErrorNotice } from './widgets';
import { OnceSecret, onceSecret } from './shown-once';

/** The approval an answer says the change waits for (202 `{pending_approval_id}`), or undefined. */
export function pendingApprovalId(answer: unknown): string | undefined {
  const id = (answer as { pending_approval_id?: unknown } | null | undefined)?.pending_approval_id;
  return typeof id === 'string' ? id : undefined;
}

/** What an action's answer says, in one line: a status and message, or counts. */
export function describeAnswer(answer: unknown): string {
  if (answer === undefined || answer === null || answer === '') return 'Done.';
  if (typeof answer !== 'object') return String(answer);
  const body = answer as Record<string, unknown>;
  if (Array.isArray(body.violations)) {
    const findings = body.violations as { code?: string }[];
    return findings.length === 0
      ? 'no policy rule is violated.'
      : `${findings.length} violation${findings.length === 1 ? '' : 's'}: ${findings.map((f) => f.code).join(', ')}`;
  }
  // A notifier's test send.
  if (typeof body.delivered === 'boolean') {
    return body.delivered ? 'delivered.' : `not delivered: ${String(body.error)}`;
  }
  // A bulk renewal over what the row names (the certificates under a CA).
  if (typeof body.total_enqueued === 'number') {
    return `renewal queued for ${body.total_enqueued} of ${String(body.total_matched)} certificates; ${String(body.total_failed)} failed.`;
  }
  // A change that waits for another person's approval (a profile, spec 4.5): nothing applied yet.
  const approvalId = pendingApprovalId(body);
  if (approvalId)
    return `not applied yet: it waits for approval ${approvalId} by another person (Approvals page).`;
  // A secret's only showing (a new or rotated API key, an EAB HMAC key, an EST key-encryption
  // key): never in this text, which stays on screen; the ShownOnce box holds it until dismissed.
  if (typeof body.key === 'string') return 'new key created: copy it now from the box below.';
  if (typeof body.hmac_key === 'string')
    return `EAB key id ${String(body.id)} created: copy its HMAC key now from the box below.`;
  if (typeof body.secret_key === 'string')
    return `key-encryption key id ${String(body.id)} created: copy its AES-256 key now from the box below.`;
  // RFC 9773 early renewal: the window renewal-info answers now, and how many certificates moved.
  const window = body.suggested_window as { start?: unknown; end?: unknown } | undefined;
  if (window && typeof window.start === 'string' && typeof window.end === 'string') {
    const between = `renew between ${window.start} and ${window.end}`;
    if (typeof body.total_moved !== 'number') return `${between}.`;
    const count = `${body.total_moved} certificate${body.total_moved === 1 ? '' : 's'}`;
    return `${count} told to ${between}.`;
  }
  // Sessions signed out (every other session of the caller).
  if (typeof body.revoked === 'number')
    return `${body.revoked} session${body.revoked === 1 ? '' : 's'} signed out.`;
  // Trust files re-read (EST bundles: a file that does not parse keeps the previous anchors).
  if (Array.isArray(body.reloaded) && Array.isArray(body.kept_previous)) {
    const kept = (body.kept_previous as { path_id: string; reason: string }[]).map(
      (profile) => `; kept the previous trust of ${profile.path_id}: ${profile.reason}`,
    );
    return `reloaded ${body.reloaded.length === 0 ? 'none' : body.reloaded.join(', ')}${kept.join('')}.`;
  }
  if (typeof body.trust_anchor_count === 'number')
    return `${body.trust_anchor_count} trust anchor${body.trust_anchor_count === 1 ? '' : 's'} loaded.`;
  // A deployment's verification: what the endpoint serves against what was deployed.
  if (typeof body.result === 'string' && typeof body.endpoint === 'string')
    return `${body.endpoint}: ${body.result}${body.error ? ` (${String(body.error)})` : ''}.`;
  // An OIDC issuer tested (discovery and key set, nothing stored): whether sign-in would work.
  if (typeof body.ok === 'boolean' && Array.isArray(body.problems)) {
    const keys = `${String(body.usable_key_count)} usable of ${String(body.key_count)} signing keys`;
    return body.ok
      ? `${String(body.issuer)} works: ${keys}.`
      : `${String(body.issuer)} would not work: ${(body.problems as unknown[]).map(String).join('; ')} (${keys}).`;
  }
  // An OIDC provider's key set, fetched again.
  if (typeof body.provider_id === 'string' && typeof body.usable_key_count === 'number') {
    const keys = `${body.usable_key_count} usable of ${String(body.key_count)} keys`;
    return body.status === 'ok'
      ? `key set ${String(body.status)}: ${keys}.`
      : `key set ${String(body.status)}${body.error ? `: ${String(body.error)}` : ''} (${keys}).`;
  }
  const parts = ['status', 'message', 'latency_ms']
    .filter((key) => body[key] !== undefined)
    .map((key) => `${key}: ${String(body[key])}`);
  return parts.length > 0 ? parts.join(', ') : 'Done.';
}

/**
 * An action's path parameters from the row: each from the field of its name (a camelCase name
 * from its snake_case field when the row has no other: `{actorId}` from `actor_id`), or the one `field`.
 */
export function actionPathParams(action: RowAction, row: Row): Record<string, string> {
  const names = [...action.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]);
  const fieldOf = (name: string) =>
    name in row ? name : name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
  return Object.fromEntries(
    names.map((name) => [
      name,
      String(row[names.length === 1 && action.field ? action.field : fieldOf(name)]),
    ]),
  );
}

/** The query an action sends for a row: its `queryFields` from the row, and a forced reason. */
export function actionQuery(action: RowAction, row: Row, reason: string): Record<string, string> | undefined {
  const fromRow = Object.fromEntries(
    Object.entries(action.queryFields ?? {}).map(([parameter, field]) => [parameter, String(row[field])]),
  );
  const query = action.reason?.in === 'force-query' ? { ...fromRow, force: 'true', reason } : fromRow;
  return Object.keys(query).length > 0 ? query : undefined;
}

/**
 * The JSON body an action sends for a row, or undefined for none: the fields it takes from the
 * row (`bodyFields`), a reason given in the body, or `{}` for an operation that needs a body.
 */
export function actionBody(action: RowAction, row: Row, reason: string): Record<string, unknown> | undefined {
  const fromRow = Object.fromEntries(
    Object.entries(action.bodyFields ?? {}).map(([field, rowField]) => [field, row[rowField]]),
  );
  const withReason = action.reason?.in === 'body' && reason ? { ...fromRow, reason } : fromRow;
  if (Object.keys(withReason).length > 0) return withReason;
  return action.emptyBody ? {} : undefined;
}

/** The actions of one row; each runs its operation, after a confirmation when it asks for one. */
export function RowActions(props: {
  actions: readonly RowAction[];
  row: Row;
  actorId: string;
  invalidate: string;
  /** The answer in words, and a secret it carried for its only showing. */
  onDone: (message: string, secret?: OnceSecret) => void;
}) {
  const queryClient = useQueryClient();
  const [pending, setPending] = useState<RowAction>();
  const [reason, setReason] = useState('');
  const run = useMutation({
    // An answer may hold a shown-once secret: the cache forgets it as soon as nothing shows it.
    gcTime: 0,
    mutationFn: async (action: RowAction) => {
      // The page spec names the operation; its one path parameter comes from the row.
      const path = action.path as '/api/v1/jobs/{id}/cancel';
      const pathParams = actionPathParams(action, props.row) as { id: string };
      if (action.method === 'DELETE') {
        const query = actionQuery(action, props.row, reason);
        return unwrap(
          api.DELETE(path as unknown as '/api/v1/agents/{id}', {
            params: { path: pathParams, query: query as never },
          }),
        );
      }
      const body = actionBody(action, props.row, reason);
      return unwrap(api.POST(path, { params: { path: pathParams }, body: body as never }));
    },
    onSuccess: (answer, action) => {
      props.onDone(`${action.label} ${rowName(props.row)}: ${describeAnswer(answer)}`, onceSecret(answer));
      run.reset();
      setPending(undefined);
      setReason('');
      void queryClient.invalidateQueries({ queryKey: [props.invalidate] });
    },
  });
  const visible = props.actions.filter((action) => !action.when || action.when(props.row));
  const start = (action: RowAction) => {
    run.reset();
    if (action.confirm || action.reason) setPending(action);
    else run.mutate(action);
  };
  return (
    <div className="row-actions">
      {visible.map((action) => {
        const refusal = action.refusal?.(props.row, props.actorId);
        return (
          <button
            key={action.label}
            type="button"
            className={action.destructive ? 'danger' : undefined}
            disabled={!!refusal || run.isPending}
            title={refusal}
            aria-label={`${action.label} ${rowName(props.row)}`}
            onClick={() => start(action)}
          >
            {action.label}
          </button>
        );
      })}
      {!pending && <ErrorNotice error={run.error} />}
      {pending && (
        <ConfirmDialog
          title={`${pending.label} ${rowName(props.row)}?`}
          confirmLabel={pending.label}
          confirmDisabled={run.isPending || (!!pending.reason?.required && !reason.trim())}
          onCancel={() => setPending(undefined)}
          onConfirm={() => run.mutate(pending)}
        >
          {pending.reason && (
            <>
              <label htmlFor="action-reason">Reason{pending.reason.required ? '' : ' (optional)'}</label>
              <input
                id="action-reason"
                value={reason}
                required={pending.reason.required}
                onChange={(event) => setReason(event.target.value)}
              />
            </>
          )}
          <ErrorNotice error={run.error} />
        </ConfirmDialog>
      )}
    </div>
  );
}
