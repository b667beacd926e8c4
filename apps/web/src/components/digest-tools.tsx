import { useState } from 'react';
import { useMutation, useQuery } from '@tanstack/react-query';
import { api, Schemas, unwrap } from '../api/client';
import { ConfirmDialog, ErrorNotice } from './widgets';

type DigestKind = Schemas['DigestDto']['kind'];

/** What the digest of one subject counts, in words. */
function countsText(counts: Schemas['DigestDto']['counts']): string {
  return [
    `${counts.expiring} expiring`,
    `${counts.failed_jobs} failed job${counts.failed_jobs === 1 ? '' : 's'}`,
    `${counts.violations} violation${counts.violations === 1 ? '' : 's'}`,
    `${counts.approvals} approval${counts.approvals === 1 ? '' : 's'} waiting`,
  ].join(', ');
}

/** The digest as its email's text part reads: the HTML part is not shown (no markup from data). */
function DigestPreview({ digest }: { digest: Schemas['DigestDto'] }) {
  return (
    <>
      <p>
        <strong>{digest.subject}</strong>: {countsText(digest.counts)}.{' '}
        {digest.addresses.length > 0
          ? `To ${digest.addresses.join(', ')}.`
          : 'No contact address: it would not be sent.'}
      </p>
      <pre className="mono">{digest.text}</pre>
    </>
  );
}

/**
 * The expiry digest of an owner or team (spec 4.12): previewed as the daily run would build it,
 * and sent now after a confirmation naming who receives it.
 */
export function ExpiryDigest({ kind, subjectId }: { kind: DigestKind; subjectId: string }) {
  const filter = kind === 'owner' ? { owner_id: subjectId } : { team_id: subjectId };
  const [asking, setAsking] = useState(false);
  const preview = useQuery({
    queryKey: ['/api/v1/digest/preview', kind, subjectId],
    queryFn: () => unwrap(api.GET('/api/v1/digest/preview', { params: { query: filter } })),
  });
  const send = useMutation({
    mutationFn: () => unwrap(api.POST('/api/v1/digest/send', { body: filter })),
    onSuccess: () => setAsking(false),
  });
  const digest = preview.data?.digests.find((d) => d.kind === kind && d.subject_id === subjectId);
  return (
    <section aria-label="Expiry digest" className="record">
      <h3>Expiry digest</h3>
      <ErrorNotice error={preview.error} />
      {preview.data && !digest && (
        <p className="empty">Nothing to report: nothing expires soon, failed, violates a policy or waits.</p>
      )}
      {digest && (
        <>
          <DigestPreview digest={digest} />
          <button
            type="button"
            disabled={digest.addresses.length === 0 || send.isPending}
            onClick={() => {
              send.reset();
              setAsking(true);
            }}
          >
            Send digest now
          </button>
        </>
      )}
      {!asking && <ErrorNotice error={send.error} />}
      {send.data && (
        <p role="status" className="notice">
          Digest sent: {send.data.notifications} notification{send.data.notifications === 1 ? '' : 's'} queued
          (run {send.data.run_id}).
        </p>
      )}
      {asking && digest && (
        <ConfirmDialog
          title={`Send the digest of ${subjectId} now?`}
          confirmLabel="Send digest"
          confirmDisabled={send.isPending}
          onCancel={() => setAsking(false)}
          onConfirm={() => send.mutate()}
        >
          <p>It goes to {digest.addresses.join(', ')}, besides the daily one.</p>
          <ErrorNotice error={send.error} />
        </ConfirmDialog>
      )}
    </section>
  );
}
