import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';
import { BulkAction, Row, rowName } from '../pages/resource-pages';
import { ConfirmDialog, ErrorNotice } from './widgets';

/** What a bulk operation answers: every id moved, already there, or refused with its code. */
export interface BulkAnswer {
  total_requested: number;
  total_changed: number;
  total_unchanged: number;
  total_failed: number;
  errors: { id: string; code: string; message: string }[];
}

/** The id a row is selected by. */
export const rowId = (row: Row): string => String(row.id);

/** "2 discovered certificates": a count with the noun agreeing. */
export function countOf(count: number, noun: [string, string]): string {
  return `${count} ${count === 1 ? noun[0] : noun[1]}`;
}

/** The request body of a bulk action: the ids under the action's key, beside its fixed fields. */
export function bulkBody(action: BulkAction, ids: readonly string[]): Record<string, unknown> {
  return { ...action.body, [action.idsKey ?? 'ids']: [...ids] };
}

/** One line of counts: how many succeeded, were already so, and failed. */
export function bulkSummary(label: string, answer: BulkAnswer): string {
  const parts = [`${answer.total_changed} of ${answer.total_requested} succeeded`];
  if (answer.total_unchanged > 0) parts.push(`${answer.total_unchanged} unchanged`);
  if (answer.total_failed > 0) parts.push(`${answer.total_failed} failed`);
  return `${label}: ${parts.join(', ')}.`;
}

/** The answer of a bulk action: its counts and, for each refused row, its name and why. */
export function BulkResult(props: { label: string; answer: BulkAnswer; rows: readonly Row[] }) {
  const names = new Map(props.rows.map((row) => [rowId(row), rowName(row)]));
  return (
    <div role="status" className="notice bulk-result">
      <p>{bulkSummary(props.label, props.answer)}</p>
      {props.answer.errors.length > 0 && (
        <ul aria-label={`${props.label}: failures`}>
          {props.answer.errors.map((failure) => (
            <li key={failure.id}>
              <span className="long-text">{names.get(failure.id) ?? failure.id}</span>: {failure.code} —{' '}
              {failure.message}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** The bar above a table with a selection: the count chosen and one button per bulk action. */
export function BulkToolbar(props: {
  actions: readonly BulkAction[];
  rows: readonly Row[];
  busy: boolean;
  onStart: (action: BulkAction) => void;
  onClear: () => void;
}) {
  const count = props.rows.length;
  return (
    <div role="toolbar" aria-label="Bulk actions" className="bulk-bar">
      <span aria-live="polite">{count === 0 ? 'None selected' : `${count} selected`}</span>
      {props.actions.map((action) => {
        const eligible = props.rows.filter((row) => !action.when || action.when(row)).length;
        return (
          <button
            key={action.label}
            type="button"
            className={action.destructive ? 'danger' : undefined}
            disabled={props.busy || eligible === 0 || eligible > (action.max ?? 100)}
            title={eligible > (action.max ?? 100) ? `At most ${action.max ?? 100} at once` : undefined}
            onClick={() => props.onStart(action)}
          >
            {action.label} selected
          </button>
        );
      })}
      <button type="button" disabled={count === 0 || props.busy} onClick={props.onClear}>
        Clear selection
      </button>
    </div>
  );
}

/** Bulk actions over the selected rows: asks first naming the count, then shows each row's result. */
export function BulkActions(props: {
  actions: readonly BulkAction[];
  rows: readonly Row[];
  noun: [string, string];
  invalidate: string;
  onClear: () => void;
}) {
  const queryClient = useQueryClient();
  const [pending, setPending] = useState<BulkAction>();
  const [result, setResult] = useState<{ label: string; answer: BulkAnswer; rows: Row[] }>();
  const targets = (action: BulkAction) => props.rows.filter((row) => !action.when || action.when(row));
  const run = useMutation({
    mutationFn: async (action: BulkAction) => {
      const rows = targets(action);
      // The page spec names the bulk operation; its body is the ids and the action's fields.
      const answer = await unwrap(
        api.POST(action.path as '/api/v1/discovered-certificates/bulk-dismiss', {
          body: bulkBody(action, rows.map(rowId)) as never,
        }),
      );
      return { label: action.label, answer: answer as BulkAnswer, rows };
    },
    onSuccess: (done) => {
      setResult(done);
      setPending(undefined);
      props.onClear();
      void queryClient.invalidateQueries({ queryKey: [props.invalidate] });
    },
  });
  return (
    <>
      <BulkToolbar
        actions={props.actions}
        rows={props.rows}
        busy={run.isPending}
        onStart={(action) => {
          run.reset();
          setResult(undefined);
          setPending(action);
        }}
        onClear={props.onClear}
      />
      {!pending && <ErrorNotice error={run.error} />}
      {result && <BulkResult {...result} />}
      {pending && (
        <ConfirmDialog
          title={`${pending.label} ${countOf(targets(pending).length, props.noun)}?`}
          confirmLabel={`${pending.label} ${countOf(targets(pending).length, props.noun)}`}
          confirmDisabled={run.isPending}
          onCancel={() => setPending(undefined)}
          onConfirm={() => run.mutate(pending)}
        >
          {targets(pending).length < props.rows.length && (
            <p>
              {countOf(props.rows.length - targets(pending).length, props.noun)} of the selection{' '}
              {props.rows.length - targets(pending).length === 1 ? 'is' : 'are'} not eligible and will be left
              out.
            </p>
          )}
          <ErrorNotice error={run.error} />
        </ConfirmDialog>
      )}
    </>
  );
}
