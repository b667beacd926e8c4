import { useQuery } from '@tanstack/react-query';
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
