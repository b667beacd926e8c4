import { SqlExecutor } from '@certlane/platform';
import {
  AcmeIdentifier,
  AuthorizationStatus,
  authorizationIdentifier,
  ChallengeStatus,
  ChallengeType,
  OrderStatus,
} from '@certlane/protocol-frontends-domain';
import { randomId, rowsOf } from '../sql/rows';

export interface AcmeOrderRow {
  id: string;
  account_id: string;
  profile_id: string;
  status: OrderStatus;
  identifiers: AcmeIdentifier[];
  expires_at: Date;
  error: unknown;
  /** RFC 9773 5: the renewal id of the certificate this order replaces. */
  replaces: string | null;
}

export interface AcmeAuthorizationRow {
  id: string;
  account_id: string;
  identifier_type: 'dns' | 'ip';
  identifier_value: string;
  wildcard: boolean;
  status: AuthorizationStatus;
  expires_at: Date;
}

export interface AcmeChallengeRow {
  id: string;
  authorization_id: string;
  type: ChallengeType;
  token: string;
  status: ChallengeStatus;
  validated_at: Date | null;
  error: unknown;
}

const CHALLENGE_COLUMNS = 'id, authorization_id, type, token, status, validated_at, error';

/**
 * Orders with their authorizations and challenges. Every status change is a compare-and-set
 * (`WHERE status = <from>`): the caller computes `to` with the domain state machine, and of two
 * replicas applying the same change only one sees `true`.
 */
export class OrderStore {
  constructor(private readonly executor: SqlExecutor) {}

  /**
   * Stores a new order: for each identifier a valid authorization of the account is reused when
   * it outlives `reuseUntil`, else a pending one is created with a challenge of each offered type.
   * Run it inside a transaction (the caller's executor).
   */
  async create(input: {
    accountId: string;
    profileId: string;
    identifiers: AcmeIdentifier[];
    /** The order's expiry, given the expiries of the authorizations it reuses. */
    expiresAt: (reusedAuthorizationExpiries: Date[]) => Date;
    authorizationExpiresAt: Date;
    /** RFC 9773 5: the certificate (its renewal id) this order replaces. */
    replaces?: string;
    reuseUntil: Date;
    challengeTypes: (identifier: AcmeIdentifier) => ChallengeType[];
  }): Promise<{ order: AcmeOrderRow; authorizationIds: string[]; reused: number }> {
    const authorizationIds: string[] = [];
    const reusedExpiries: Date[] = [];
    let reused = 0;
    for (const requested of input.identifiers) {
      const { identifier, wildcard } = authorizationIdentifier(requested);
      const [existing] = await rowsOf<{ id: string; expires_at: Date }>(
        this.executor,
        `SELECT id, expires_at FROM acme_authorizations WHERE account_id = $1 AND identifier_type = $2 AND identifier_value = $3
           AND wildcard = $4 AND status = 'valid' AND expires_at > $5 ORDER BY expires_at DESC LIMIT 1`,
        [input.accountId, identifier.type, identifier.value, wildcard, input.reuseUntil],
      );
      if (existing) {
        authorizationIds.push(existing.id);
        reusedExpiries.push(existing.expires_at);
        reused++;
        continue;
      }
      const id = randomId();
      const types = input.challengeTypes(requested);
      // The authorization and its challenges in one statement.
      await this.executor.query(
        `WITH authorization_row AS (
           INSERT INTO acme_authorizations (id, account_id, identifier_type, identifier_value, wildcard, expires_at)
           VALUES ($1, $2, $3, $4, $5, $6) RETURNING id)
         INSERT INTO acme_challenges (id, authorization_id, type, token)
         SELECT unnest($7::text[]), authorization_row.id, unnest($8::text[]), unnest($9::text[]) FROM authorization_row`,
        [
          id,
          input.accountId,
          identifier.type,
          identifier.value,
          wildcard,
          input.authorizationExpiresAt,
          types.map(() => randomId()),
          types,
          types.map(() => randomId(32)),
        ],
      );
      authorizationIds.push(id);
    }
    // The order and its links to its authorizations in one statement.
    const [order] = await rowsOf<AcmeOrderRow>(
      this.executor,
      `WITH order_row AS (
         INSERT INTO acme_orders (id, account_id, profile_id, identifiers, expires_at, replaces)
         VALUES ($1, $2, $3, $4, $5, $6) RETURNING id, account_id, profile_id, status, identifiers, expires_at, error, replaces),
       links AS (
         INSERT INTO acme_order_authorizations (order_id, authorization_id)
         SELECT order_row.id, unnest($7::text[]) FROM order_row ON CONFLICT DO NOTHING)
       SELECT * FROM order_row`,
      [
        randomId(),
        input.accountId,
        input.profileId,
        JSON.stringify(input.identifiers),
        input.expiresAt(reusedExpiries),
        input.replaces ?? null,
        authorizationIds,
      ],
    );
    return { order, authorizationIds, reused };
  }

  async order(id: string): Promise<AcmeOrderRow | null> {
    const rows = await rowsOf<AcmeOrderRow>(
      this.executor,
      'SELECT id, account_id, profile_id, status, identifiers, expires_at, error, replaces FROM acme_orders WHERE id = $1',
      [id],
    );
    return rows[0] ?? null;
  }

  /** Whether another order replacing `renewalId` is being or has been finalized (RFC 9773 5). */
  async replacedBy(renewalId: string): Promise<string | null> {
    const rows = await rowsOf<{ id: string }>(
      this.executor,
      `SELECT id FROM acme_orders WHERE replaces = $1 AND status IN ('processing', 'valid') LIMIT 1`,
      [renewalId],
    );
    return rows[0]?.id ?? null;
  }

  async ordersOf(accountId: string, limit = 1000): Promise<string[]> {
    const rows = await rowsOf<{ id: string }>(
      this.executor,
      'SELECT id FROM acme_orders WHERE account_id = $1 ORDER BY created_at DESC LIMIT $2',
      [accountId, limit],
    );
    return rows.map((r) => r.id);
  }

  async authorization(id: string): Promise<AcmeAuthorizationRow | null> {
    const rows = await rowsOf<AcmeAuthorizationRow>(
      this.executor,
      `SELECT id, account_id, identifier_type, identifier_value, wildcard, status, expires_at
       FROM acme_authorizations WHERE id = $1`,
      [id],
    );
    return rows[0] ?? null;
  }

  async challenge(id: string): Promise<AcmeChallengeRow | null> {
    const rows = await rowsOf<AcmeChallengeRow>(
      this.executor,
      `SELECT ${CHALLENGE_COLUMNS} FROM acme_challenges WHERE id = $1`,
      [id],
    );
    return rows[0] ?? null;
  }

  /** The pending orders an authorization is part of (to move them when it changes). */
  async pendingOrdersOf(authorizationId: string): Promise<string[]> {
    const rows = await rowsOf<{ id: string }>(
      this.executor,
      `SELECT o.id FROM acme_orders o JOIN acme_order_authorizations oa ON oa.order_id = o.id
       WHERE oa.authorization_id = $1 AND o.status IN ('pending', 'ready')`,
      [authorizationId],
    );
    return rows.map((r) => r.id);
  }

  /** Processing challenges no replica holds (a lost validation): the retry sweep's work. */
  async unclaimedProcessing(limit = 100): Promise<string[]> {
    const rows = await rowsOf<{ id: string }>(
      this.executor,
      `SELECT id FROM acme_challenges WHERE status = 'processing' AND (claimed_until IS NULL OR claimed_until <= now())
       LIMIT $1`,
      [limit],
    );
    return rows.map((r) => r.id);
  }

  async authorizationsOf(orderId: string): Promise<AcmeAuthorizationRow[]> {
    return rowsOf<AcmeAuthorizationRow>(
      this.executor,
      `SELECT a.id, a.account_id, a.identifier_type, a.identifier_value, a.wildcard, a.status, a.expires_at
       FROM acme_authorizations a JOIN acme_order_authorizations oa ON oa.authorization_id = a.id
       WHERE oa.order_id = $1 ORDER BY a.identifier_type, a.identifier_value`,
      [orderId],
    );
  }

  async challengesOf(authorizationId: string): Promise<AcmeChallengeRow[]> {
    return rowsOf<AcmeChallengeRow>(
      this.executor,
      `SELECT id, authorization_id, type, token, status, validated_at, error FROM acme_challenges
       WHERE authorization_id = $1 ORDER BY type`,
      [authorizationId],
    );
  }

  /** Compare-and-set of an order's status (with its problem document when it turns invalid). */
  async setOrderStatus(id: string, from: OrderStatus, to: OrderStatus, error?: unknown): Promise<boolean> {
    const rows = await rowsOf<{ id: string }>(
      this.executor,
      `UPDATE acme_orders SET status = $3, error = COALESCE($4, error), updated_at = now()
       WHERE id = $1 AND status = $2 RETURNING id`,
      [id, from, to, error === undefined ? null : JSON.stringify(error)],
    );
    return rows.length === 1;
  }

  async setAuthorizationStatus(
    id: string,
    from: AuthorizationStatus,
    to: AuthorizationStatus,
  ): Promise<boolean> {
    const rows = await rowsOf<{ id: string }>(
      this.executor,
      'UPDATE acme_authorizations SET status = $3, updated_at = now() WHERE id = $1 AND status = $2 RETURNING id',
      [id, from, to],
    );
    return rows.length === 1;
  }

  async setChallengeStatus(
    id: string,
    from: ChallengeStatus,
    to: ChallengeStatus,
    error?: unknown,
  ): Promise<boolean> {
    const rows = await rowsOf<{ id: string }>(
      this.executor,
      `UPDATE acme_challenges SET status = $3, error = COALESCE($4, error),
         validated_at = CASE WHEN $3 = 'valid' THEN now() ELSE validated_at END, claimed_until = NULL
       WHERE id = $1 AND status = $2 RETURNING id`,
      [id, from, to, error === undefined ? null : JSON.stringify(error)],
    );
    return rows.length === 1;
  }

  /**
   * Takes a processing challenge for one validation attempt, for `leaseMs`: no other replica takes
   * it until the lease runs out (a replica lost mid-validation is replaced then). True when taken.
   */
  async claimForValidation(id: string, leaseMs: number): Promise<AcmeChallengeRow | null> {
    const rows = await rowsOf<AcmeChallengeRow>(
      this.executor,
      `UPDATE acme_challenges SET claimed_until = now() + $2 * interval '1 millisecond', attempts = attempts + 1
       WHERE id = $1 AND status = 'processing' AND (claimed_until IS NULL OR claimed_until <= now())
       RETURNING ${CHALLENGE_COLUMNS}`,
      [id, leaseMs],
    );
    return rows[0] ?? null;
  }

  /**
   * Hands a processing challenge back for another attempt after `delayMs` (its lease is moved to
   * then, so the sweep of any replica takes it up). False when it is no longer processing.
   */
  async retryLater(id: string, delayMs: number): Promise<boolean> {
    const rows = await rowsOf<{ id: string }>(
      this.executor,
      `UPDATE acme_challenges SET claimed_until = now() + $2 * interval '1 millisecond'
       WHERE id = $1 AND status = 'processing' RETURNING id`,
      [id, delayMs],
    );
    return rows.length === 1;
  }

  async attemptsOf(id: string): Promise<number> {
    const rows = await rowsOf<{ attempts: number }>(
      this.executor,
      'SELECT attempts FROM acme_challenges WHERE id = $1',
      [id],
    );
    return rows[0]?.attempts ?? 0;
  }

  /**
   * The expiry sweep: pending/valid authorizations and pending/ready orders past their time.
   * Each is one conditional UPDATE, so replicas sweeping together never apply a change twice.
   */
  async expire(now: Date): Promise<{ authorizations: number; orders: number }> {
    const authorizations = await rowsOf<{ id: string }>(
      this.executor,
      `UPDATE acme_authorizations SET status = 'expired', updated_at = now()
       WHERE status IN ('pending', 'valid') AND expires_at <= $1 RETURNING id`,
      [now],
    );
    const orders = await rowsOf<{ id: string }>(
      this.executor,
      `UPDATE acme_orders SET status = 'invalid', updated_at = now(),
         error = '{"type":"urn:ietf:params:acme:error:malformed","detail":"the order expired","status":400}'::jsonb
       WHERE status IN ('pending', 'ready') AND expires_at <= $1 RETURNING id`,
      [now],
    );
    return { authorizations: authorizations.length, orders: orders.length };
  }
}
