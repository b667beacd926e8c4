import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { describeAnswer } from '../components/row-actions';
import { SchemaForm } from '../components/schema-form';
import { api, unwrap } from '../api/client';
import {
  ConfirmDialog,
  ErrorNotice,
  Expiry,
  ReasonSelect,
  RevocationReason,
  StatusBadge,
  Time,
} from '../components/widgets';

function download(name: string, blob: Blob): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/**
 * One certificate: its fields, versions, downloads, renew (force), revoke with a reason, its edit
 * form and archive.
 */
export function CertificateDetailPage() {
  const { id = '' } = useParams();
  const queryClient = useQueryClient();
  const [revoking, setRevoking] = useState<string>();
  const [archiving, setArchiving] = useState(false);
  const [notice, setNotice] = useState<string>();
  const [targetId, setTargetId] = useState('');
  const targets = useQuery({
    queryKey: ['/api/v1/targets', 'for-deploy'],
    queryFn: () => unwrap(api.GET('/api/v1/targets', { params: { query: { per_page: 100 } } })),
  });
  const deploy = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/api/v1/certificates/{id}/deploy', {
          params: { path: { id } },
          body: { target_id: targetId },
        }),
      ),
    onSuccess: (result) => setNotice(`Deployment: ${describeAnswer(result)}`),
  });
  const certificate = useQuery({
    queryKey: ['certificate', id],
    queryFn: () => unwrap(api.GET('/api/v1/certificates/{id}', { params: { path: { id } } })),
  });
  const versions = useQuery({
    queryKey: ['certificate-versions', id],
    queryFn: () => unwrap(api.GET('/api/v1/certificates/{id}/versions', { params: { path: { id } } })),
  });
  const refresh = () => {
    void queryClient.invalidateQueries({ queryKey: ['certificate', id] });
    void queryClient.invalidateQueries({ queryKey: ['certificates'] });
    void queryClient.invalidateQueries({ queryKey: ['stats-summary'] });
  };
  const renew = useMutation({
    mutationFn: (force: boolean) =>
      unwrap(api.POST('/api/v1/certificates/{id}/renew', { params: { path: { id } }, body: { force } })),
    onSuccess: (result) => {
      setNotice(`Renewal: ${result.status}`);
      refresh();
    },
  });
  // RFC 9773 4.2: an ACME certificate is renewed by its client; its renewal information tells it when.
  const renewEarly = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/api/v1/admin/acme/certificates/{id}/renew-early', {
          params: { path: { id } },
          body: {},
        }),
      ),
    onSuccess: (result) =>
      setNotice(
        `The ACME client is told to renew between ${new Date(result.suggested_window.start).toLocaleString()} and ${new Date(result.suggested_window.end).toLocaleString()}.`,
      ),
  });
  const revoke = useMutation({
    mutationFn: (reason: string) =>
      unwrap(
        api.POST('/api/v1/certificates/{id}/revoke', {
          params: { path: { id } },
          body: { reason: reason as RevocationReason },
        }),
      ),
    onSuccess: () => {
      setRevoking(undefined);
      setNotice('Revoked.');
      refresh();
    },
  });
  const archive = useMutation({
    mutationFn: () => unwrap(api.DELETE('/api/v1/certificates/{id}', { params: { path: { id } } })),
    onSuccess: () => {
      setArchiving(false);
      setNotice('Archived.');
      refresh();
    },
  });
  const exportFile = useMutation({
    mutationFn: async (format: 'pem' | 'pkcs12') => {
      const response =
        format === 'pem'
          ? await api.GET('/api/v1/certificates/{id}/export/pem', {
              params: { path: { id }, query: { download: 'true' } },
              parseAs: 'blob',
            })
          : await api.POST('/api/v1/certificates/{id}/export/pkcs12', {
              params: { path: { id } },
              body: {},
              parseAs: 'blob',
            });
      const blob = (await unwrap(Promise.resolve(response))) as Blob;
      download(`${certificate.data?.name ?? id}.${format === 'pem' ? 'pem' : 'p12'}`, blob);
    },
  });
  const c = certificate.data;
  // A certificate an ACME, EST or SCEP client enrolled and no agent holds is renewed by that client;
  // the API refuses to renew it (versionJobRefusal, ADR 0028 amendment).
  const renewedByClient = !!c && ['ACME', 'EST', 'SCEP'].includes(c.source) && !c.agent_id;
  return (
    <section aria-labelledby="page-title">
      <p>
        <Link to="/certificates">← Certificates</Link>
      </p>
      <ErrorNotice error={certificate.error} />
      {c && (
        <>
          <h1 id="page-title">{c.name}</h1>
          <dl className="fields">
            <dt>Status</dt>
            <dd>
              <StatusBadge status={c.status} />
            </dd>
            <dt>Common name</dt>
            <dd>{c.common_name}</dd>
            <dt>SANs</dt>
            <dd>{c.sans.join(', ') || '—'}</dd>
            <dt>Expires</dt>
            <dd>
              <Expiry value={c.expires_at} status={c.status} />
            </dd>
            <dt>Environment</dt>
            <dd>{c.environment}</dd>
            <dt>Issuer</dt>
            <dd>{c.issuer_id}</dd>
            <dt>Owner / team</dt>
            <dd>
              {c.owner_id} / {c.team_id}
            </dd>
            <dt>Last renewed</dt>
            <dd>
              <Time value={c.last_renewed_at} />
            </dd>
            {c.revoked_at && (
              <>
                <dt>Revoked</dt>
                <dd>
                  <Time value={c.revoked_at} /> ({c.revocation_reason})
                </dd>
              </>
            )}
          </dl>
          <div className="actions">
            {renewedByClient ? (
              c.source !== 'ACME' && (
                <span className="hint">
                  Renewed by its {c.source} client ({c.source === 'EST' ? 'simplereenroll' : 'RenewalReq'})
                </span>
              )
            ) : (
              <>
                <button type="button" onClick={() => renew.mutate(false)} disabled={renew.isPending}>
                  Renew
                </button>
                <button type="button" onClick={() => renew.mutate(true)} disabled={renew.isPending}>
                  Force renew
                </button>
              </>
            )}
            {c.source === 'ACME' && (
              <button
                type="button"
                onClick={() => renewEarly.mutate()}
                disabled={renewEarly.isPending || !!c.revoked_at}
                title="Moves its renewal information (RFC 9773) to now, so the ACME client renews within the hour"
              >
                Ask the ACME client to renew
              </button>
            )}
            <button type="button" onClick={() => exportFile.mutate('pem')}>
              Download PEM
            </button>
            <button type="button" onClick={() => exportFile.mutate('pkcs12')}>
              Download PKCS#12
            </button>
            <button
              type="button"
              className="danger"
              onClick={() => setRevoking('')}
              disabled={!!c.revoked_at}
            >
              Revoke…
            </button>
            <button
              type="button"
              className="danger"
              onClick={() => setArchiving(true)}
              disabled={c.status === 'Archived'}
            >
              Archive…
            </button>
          </div>
          <SchemaForm
            key={c.id}
            path="/api/v1/certificates/{id}"
            method="PUT"
            id={c.id}
            record={c}
            title={`Edit ${c.name}`}
            invalidate="certificate"
            submitLabel="Save"
          />
          <form
            className="deploy"
            onSubmit={(event) => {
              event.preventDefault();
              deploy.mutate();
            }}
          >
            <label htmlFor="deploy-target">Deploy to target</label>{' '}
            <select
              id="deploy-target"
              required
              value={targetId}
              onChange={(event) => setTargetId(event.target.value)}
            >
              <option value="">Choose a target…</option>
              {targets.data?.data.map((target) => (
                <option key={target.id} value={target.id}>
                  {target.name} ({target.type})
                </option>
              ))}
            </select>{' '}
            <button type="submit" disabled={!targetId || deploy.isPending}>
              Deploy
            </button>
          </form>
          {notice && (
            <p role="status" className="notice">
              {notice}
            </p>
          )}
          <ErrorNotice error={renew.error ?? renewEarly.error ?? exportFile.error ?? deploy.error} />
          <h2>Versions</h2>
          <ErrorNotice error={versions.error} />
          {versions.data && versions.data.data.length === 0 && <p className="empty">Not issued yet.</p>}
          {versions.data && versions.data.data.length > 0 && (
            <table>
              <thead>
                <tr>
                  <th scope="col">Serial</th>
                  <th scope="col">Issued</th>
                  <th scope="col">Not after</th>
                  <th scope="col">Key</th>
                  <th scope="col">Signed by CA</th>
                  <th scope="col">SHA-256</th>
                </tr>
              </thead>
              <tbody>
                {versions.data.data.map((version) => (
                  <tr key={version.id}>
                    <td>{version.serial_number}</td>
                    <td>
                      <Time value={version.issued_at} />
                    </td>
                    <td>
                      <Time value={version.not_after} />
                    </td>
                    <td>
                      {version.key_algorithm} {version.key_size}
                    </td>
                    <td>
                      {version.ca_id ? (
                        <Link to={`/certificates?ca_id=${encodeURIComponent(version.ca_id)}`}>
                          {version.ca_id}
                        </Link>
                      ) : (
                        <span className="muted">elsewhere</span>
                      )}
                    </td>
                    <td className="mono">{version.fingerprint_sha256}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </>
      )}
      {archiving && (
        <ConfirmDialog
          title={`Archive ${c?.name ?? 'this certificate'}?`}
          confirmLabel="Archive"
          confirmDisabled={archive.isPending}
          onCancel={() => setArchiving(false)}
          onConfirm={() => archive.mutate()}
        >
          <p>
            It leaves the default certificate list (the Archived status filter shows it); it is not revoked.
          </p>
          <ErrorNotice error={archive.error} />
        </ConfirmDialog>
      )}
      {revoking !== undefined && (
        <ConfirmDialog
          title={`Revoke ${c?.name ?? 'this certificate'}?`}
          confirmLabel="Revoke"
          confirmDisabled={!revoking || revoke.isPending}
          onCancel={() => setRevoking(undefined)}
          onConfirm={() => revoke.mutate(revoking)}
        >
          <ReasonSelect value={revoking} onChange={setRevoking} />
          <ErrorNotice error={revoke.error} />
        </ConfirmDialog>
      )}
    </section>
  );
}
