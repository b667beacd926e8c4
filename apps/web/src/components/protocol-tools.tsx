import { useQuery } from '@tanstack/react-query';
import { api, Schemas, unwrap } from '../api/client';
import { ErrorNotice, Expiry, StatusBadge, Time } from './widgets';

/** What an ACME problem document says (RFC 8555 6.7): its detail, else its type. */
function problemText(problem: Record<string, unknown>): string {
  const text = problem.detail ?? problem.type;
  return typeof text === 'string' ? text : JSON.stringify(problem);
}

/** One challenge of an authorization: its type and state, when it was validated or why it failed. */
function ChallengeLine({ challenge }: { challenge: Schemas['AcmeChallengeSummaryDto'] }) {
  return (
    <li>
      {challenge.type} <StatusBadge status={challenge.status} />
      {challenge.validated_at && (
        <>
          {' '}
          validated <Time value={challenge.validated_at} />
        </>
      )}
      {challenge.error && <span className="long-text"> — {problemText(challenge.error)}</span>}
    </li>
  );
}

/** An ACME order's authorizations (one per identifier) and the challenges offered for each. */
export function AcmeOrderAuthorizations({ orderId }: { orderId: string }) {
  const order = useQuery({
    queryKey: ['/api/v1/admin/acme/orders', 'detail', orderId],
    queryFn: () => unwrap(api.GET('/api/v1/admin/acme/orders/{id}', { params: { path: { id: orderId } } })),
  });
  const authorizations = order.data?.authorizations ?? [];
  return (
    <section aria-label="Authorizations and challenges" className="record">
      <h3>Authorizations and challenges</h3>
      <ErrorNotice error={order.error} />
      {order.data && authorizations.length === 0 && <p className="empty">No authorization for this order.</p>}
      {authorizations.length > 0 && (
        <table>
          <thead>
            <tr>
              <th scope="col">Identifier</th>
              <th scope="col">Authorization</th>
              <th scope="col">Status</th>
              <th scope="col">Expires</th>
              <th scope="col">Challenges</th>
            </tr>
          </thead>
          <tbody>
            {authorizations.map((authorization) => (
              <tr key={authorization.id}>
                <td>
                  {authorization.wildcard ? '*.' : ''}
                  {authorization.identifier.value}
                </td>
                <td className="long-text">{authorization.id}</td>
                <td>
                  <StatusBadge status={authorization.status} />
                </td>
                <td>
                  <Time value={authorization.expires_at} />
                </td>
                <td>
                  {authorization.challenges.length === 0 ? (
                    '—'
                  ) : (
                    <ul className="plain">
                      {authorization.challenges.map((challenge) => (
                        <ChallengeLine key={challenge.id} challenge={challenge} />
                      ))}
                    </ul>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

/**
 * A SCEP profile's MDM challenge validation: how many challenges ended in each outcome, and when
 * its trust anchors expire. Under the page's list key, so Reload MDM trust asks for it again.
 */
export function ScepMdmStats({ pathId }: { pathId: string }) {
  const stats = useQuery({
    queryKey: ['/api/v1/admin/scep/profiles', 'mdm-stats'],
    queryFn: () => unwrap(api.GET('/api/v1/admin/scep/mdm/stats')),
  });
  const profile = stats.data?.profiles.find((entry) => entry.path_id === pathId);
  return (
    <section aria-label="MDM challenges" className="record">
      <h3>MDM challenges</h3>
      <ErrorNotice error={stats.error} />
      {stats.data && !profile?.mdm_enabled && (
        <p className="empty">MDM challenge validation is off for this profile.</p>
      )}
      {profile?.mdm_enabled && (
        <>
          <p>
            {profile.trust_anchor_count} trust anchor{profile.trust_anchor_count === 1 ? '' : 's'}, loaded{' '}
            <Time value={profile.trust_loaded_at} />; the first expires{' '}
            <Expiry value={profile.trust_expires_at} />.
          </p>
          <dl className="fields">
            {Object.entries(profile.counters).map(([outcome, count]) => (
              <div key={outcome} className="field-row">
                <dt>{outcome.replace(/_/g, ' ')}</dt>
                <dd>{count}</dd>
              </div>
            ))}
          </dl>
          {profile.trust_anchors.length > 0 && (
            <table>
              <thead>
                <tr>
                  <th scope="col">Trust anchor</th>
                  <th scope="col">Expires</th>
                </tr>
              </thead>
              <tbody>
                {profile.trust_anchors.map((anchor, index) => (
                  <tr key={`${anchor.subject}-${index}`}>
                    <td className="long-text">{anchor.subject}</td>
                    <td>
                      <Expiry value={anchor.not_after} />
                    </td>
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
