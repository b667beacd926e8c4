import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api, unwrap } from '../api/client';
import { buildTree, TreeNode } from '../lib/redact';
import { Row } from '../pages/resource-pages';
import { ErrorNotice, StatusBadge, Time } from './widgets';

function CaBranch({ node }: { node: TreeNode<Row> }) {
  return (
    <li>
      <span>{String(node.row.subject)}</span> <StatusBadge status={String(node.row.status)} />{' '}
      <span className="muted">{String(node.row.id)}</span>
      {node.children.length > 0 && (
        <ul>
          {node.children.map((child) => (
            <CaBranch key={String(child.row.id)} node={child} />
          ))}
        </ul>
      )}
    </li>
  );
}

/** The CAs of the page as the tree their parents make. */
export function CaTree({ rows }: { rows: Row[] }) {
  if (rows.length === 0) return null;
  return (
    <section aria-label="CA tree" className="tree">
      <h2>Tree</h2>
      <ul>
        {buildTree(rows, 'parent_id').map((node) => (
          <CaBranch key={String(node.row.id)} node={node} />
        ))}
      </ul>
    </section>
  );
}

/** How many certificates chain through one CA (ADR 0076), linked to the inventory filtered so. */
export function CaCertificatesUnder({ caId }: { caId: string }) {
  const under = useQuery({
    queryKey: ['certificates', 'under-ca', caId],
    queryFn: () =>
      unwrap(api.GET('/api/v1/certificates', { params: { query: { ca_id: caId, per_page: 1 } } })),
  });
  return (
    <section aria-label="Certificates under this CA" className="record">
      <h3>Certificates under this CA</h3>
      <ErrorNotice error={under.error} />
      {under.data && (
        <p>
          <Link to={`/certificates?ca_id=${encodeURIComponent(caId)}`}>
            {under.data.total} certificate{under.data.total === 1 ? '' : 's'}
          </Link>{' '}
          signed by it or by a CA below it (current versions).
        </p>
      )}
    </section>
  );
}

/** The cross-certificates of one CA (ADR 0070): other certificates of its subject and key. */
export function CaCrossCertificates({ caId }: { caId: string }) {
  const crosses = useQuery({
    queryKey: ['/api/v1/intermediate-cas', 'cross-certificates', caId],
    queryFn: () =>
      unwrap(
        api.GET('/api/v1/intermediate-cas/{id}/cross-certificates', {
          params: { path: { id: caId }, query: { per_page: 100 } },
        }),
      ),
  });
  const rows = crosses.data?.data ?? [];
  return (
    <section aria-label="Cross-certificates" className="record">
      <h3>Cross-certificates</h3>
      <ErrorNotice error={crosses.error} />
      {crosses.data && rows.length === 0 && <p className="empty">No cross-certificate: one chain only.</p>}
      {rows.length > 0 && (
        <table>
          <thead>
            <tr>
              <th scope="col">Id</th>
              <th scope="col">Signed by</th>
              <th scope="col">Status</th>
              <th scope="col">Expires</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((cross) => (
              <tr key={cross.id}>
                <td>{cross.id}</td>
                <td>{cross.parent_id ?? cross.issuer}</td>
                <td>
                  <StatusBadge status={cross.status} />
                </td>
                <td>
                  <Time value={cross.not_after} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

/** An issuer's revocation status: its CRL number, when it was made, how many entries. */
export function IssuerCrlStatus({ issuerId }: { issuerId: string }) {
  const crl = useQuery({
    queryKey: ['crl-status', issuerId],
    queryFn: () =>
      unwrap(api.GET('/api/v1/crl', { params: { query: { issuer_id: issuerId, limit: 1 } as never } })),
  });
  return (
    <section aria-label="Revocation status" className="notice">
      <h3>CRL and OCSP</h3>
      <ErrorNotice error={crl.error} />
      {crl.data && (
        <p>
          CRL number {crl.data.version}, made <Time value={crl.data.generated_at} />, {crl.data.total} revoked
          {crl.data.total === 1 ? ' certificate' : ' certificates'}. OCSP answers at{' '}
          <code>/ocsp/{issuerId}</code>; the DER CRL is <code>/crl/{issuerId}.crl</code>.
        </p>
      )}
    </section>
  );
}

/** The open violations of one policy rule. */
export function PolicyViolations({ ruleId }: { ruleId: string }) {
  const violations = useQuery({
    queryKey: ['policy-violations', ruleId],
    queryFn: () =>
      unwrap(
        api.GET('/api/v1/policies/{id}/violations', {
          params: { path: { id: ruleId }, query: { per_page: 100 } },
        }),
      ),
  });
  return (
    <section aria-label="Violations" className="record">
      <h3>Violations</h3>
      <ErrorNotice error={violations.error} />
      {violations.data && violations.data.data.length === 0 && (
        <p className="empty">No certificate violates this rule.</p>
      )}
      {violations.data && violations.data.data.length > 0 && (
        <table>
          <thead>
            <tr>
              <th scope="col">Certificate</th>
              <th scope="col">Severity</th>
              <th scope="col">Code</th>
              <th scope="col">Message</th>
              <th scope="col">Detected</th>
            </tr>
          </thead>
          <tbody>
            {violations.data.data.map((violation) => (
              <tr key={violation.id}>
                <td>{violation.certificate_id}</td>
                <td>{violation.severity}</td>
                <td>{violation.code}</td>
                <td>{violation.message}</td>
                <td>
                  <Time value={violation.detected_at} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

/** What the agent (or dispatcher) verified at the endpoint after a deployment job. */
export function JobVerification({ jobId }: { jobId: string }) {
  const verification = useQuery({
    queryKey: ['job-verification', jobId],
    queryFn: () => unwrap(api.GET('/api/v1/jobs/{id}/verification', { params: { path: { id: jobId } } })),
    retry: false,
  });
  const missing = verification.error && (verification.error as { status?: number }).status === 404;
  return (
    <section aria-label="Verification" className="notice">
      <h3>Verification</h3>
      {missing && <p>Nothing verified for this job (only deployment jobs report a verification).</p>}
      {!missing && <ErrorNotice error={verification.error} />}
      {verification.data && (
        <p>
          {verification.data.endpoint}: <StatusBadge status={verification.data.result} />{' '}
          {verification.data.error || `serves ${verification.data.served_fingerprint_sha256.slice(0, 16)}…`} (
          <Time value={verification.data.checked_at} />)
        </p>
      )}
    </section>
  );
}

/**
 * An OIDC provider's key set as the auth service last fetched it (spec 4.10): whether sign-in can
 * check ID tokens, and the public keys it holds. Under the page's list key, so the row's Refresh
 * keys asks for it again.
 */
export function OidcKeySet({ providerId }: { providerId: string }) {
  const status = useQuery({
    queryKey: ['/api/v1/auth/oidc/providers', 'jwks-status', providerId],
    queryFn: () =>
      unwrap(
        api.GET('/api/v1/auth/oidc/providers/{id}/jwks-status', { params: { path: { id: providerId } } }),
      ),
  });
  const keys = status.data?.keys ?? [];
  return (
    <section aria-label="Key set" className="record">
      <h3>Key set</h3>
      <ErrorNotice error={status.error} />
      {status.data && (
        <>
          <p>
            <StatusBadge status={status.data.status} /> {status.data.usable_key_count} usable of{' '}
            {status.data.key_count} key{status.data.key_count === 1 ? '' : 's'}
            {status.data.fetched_at ? (
              <>
                , fetched <Time value={status.data.fetched_at} />
              </>
            ) : (
              ', never fetched'
            )}
            {status.data.jwks_uri ? (
              <>
                {' '}
                from <span className="long-text">{status.data.jwks_uri}</span>
              </>
            ) : null}
            .
          </p>
          {status.data.error && <p className="field-error">{status.data.error}</p>}
          {keys.length > 0 && (
            <table>
              <thead>
                <tr>
                  <th scope="col">Key id</th>
                  <th scope="col">Type</th>
                  <th scope="col">Algorithm</th>
                  <th scope="col">Use</th>
                </tr>
              </thead>
              <tbody>
                {keys.map((key, index) => (
                  <tr key={`${key.kid ?? ''}-${index}`}>
                    <td>{key.kid ?? '—'}</td>
                    <td>{key.kty}</td>
                    <td>{key.alg ?? '—'}</td>
                    <td>{key.use ?? '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </>
      )}
    </section>
  );
}
