import { useMutation } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';
import { ErrorNotice } from './widgets';

/** The audit chain check and the NDJSON export of the filtered category. */
export function AuditTools({ category }: { category?: string }) {
  const verify = useMutation({ mutationFn: () => unwrap(api.GET('/api/v1/audit/verify')) });
  const exportFile = useMutation({
    mutationFn: async () => {
      const answer = await api.GET('/api/v1/audit/export', {
        params: { query: category ? { category } : {} } as never,
        parseAs: 'blob',
      });
      const blob = (await unwrap(Promise.resolve(answer))) as Blob;
      const url = URL.createObjectURL(blob);
      const link = document.createElement('a');
      link.href = url;
      link.download = 'audit.ndjson';
      link.click();
      setTimeout(() => URL.revokeObjectURL(url), 1000);
    },
  });
  return (
    <div className="actions">
      <button type="button" onClick={() => verify.mutate()} disabled={verify.isPending}>
        Verify the chain
      </button>
      <button type="button" onClick={() => exportFile.mutate()} disabled={exportFile.isPending}>
        Export NDJSON
      </button>
      {verify.data && (
        <p role="status" className="notice">
          {verify.data.ok
            ? `Chain intact: ${verify.data.checked} events checked.`
            : `Chain broken after ${verify.data.checked} events.`}
        </p>
      )}
      <ErrorNotice error={verify.error ?? exportFile.error} />
    </div>
  );
}
