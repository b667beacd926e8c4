import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';
import { PageAction } from '../pages/resource-pages';
import { describeAnswer } from './row-actions';
import { ConfirmDialog, ErrorNotice } from './widgets';

/**
 * The operations of a page as a whole (no row, no input): a button each, asking first when the
 * action says so, and the answer in words in the page's status line.
 */
export function PageActions(props: {
  actions: readonly PageAction[];
  invalidate: string;
  onDone: (message: string) => void;
}) {
  const queryClient = useQueryClient();
  const [pending, setPending] = useState<PageAction>();
  const run = useMutation({
    mutationFn: (action: PageAction): Promise<unknown> => {
      // The page spec names an operation without parameters or body.
      const path = action.path as '/api/v1/auth/sessions';
      return action.method === 'DELETE'
        ? unwrap(api.DELETE(path))
        : unwrap(api.POST(path as '/api/v1/admin/est/reload-trust'));
    },
    onSuccess: (answer, action) => {
      props.onDone(`${action.label}: ${describeAnswer(answer)}`);
      setPending(undefined);
      void queryClient.invalidateQueries({ queryKey: [props.invalidate] });
    },
  });
  return (
    <div className="actions">
      {props.actions.map((action) => (
        <button
          key={action.label}
          type="button"
          className={action.destructive ? 'danger' : undefined}
          disabled={run.isPending}
          onClick={() => {
            run.reset();
            if (action.confirm) setPending(action);
            else run.mutate(action);
          }}
        >
          {action.label}
        </button>
      ))}
      {!pending && <ErrorNotice error={run.error} />}
      {pending && (
        <ConfirmDialog
          title={`${pending.label}?`}
          confirmLabel={pending.label}
          confirmDisabled={run.isPending}
          onCancel={() => setPending(undefined)}
          onConfirm={() => run.mutate(pending)}
        >
          <ErrorNotice error={run.error} />
        </ConfirmDialog>
      )}
    </div>
  );
}
