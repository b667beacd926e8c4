import { SqlExecutor } from '@certlane/platform';
import { rowsOf } from '../sql/rows';

/**
 * The ACME profile an authorization is validated for: the profile of the newest order that links
 * it (an authorization reused by a later order counts for that order's profile).
 */
export async function profileOfAuthorization(
  executor: SqlExecutor,
  authorizationId: string,
): Promise<string | null> {
  const rows = await rowsOf<{ profile_id: string }>(
    executor,
    `SELECT o.profile_id FROM acme_order_authorizations l JOIN acme_orders o ON o.id = l.order_id
     WHERE l.authorization_id = $1 ORDER BY o.created_at DESC LIMIT 1`,
    [authorizationId],
  );
  return rows[0]?.profile_id ?? null;
}
