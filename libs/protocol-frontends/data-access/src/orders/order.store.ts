import { SqlExecutor } from '@certlane/platform';
import {
  AcmeIdentifier,
  AuthorizationStatus,
  authorizationIdentifier,
  ChallengeStatus,
  ChallengeType,
  AUTHORIZATION_STATUSES,
  EARLY_RETRY_SPACING_MS,
  nextAuthorizationStatus,
  OrderStatus,
  statusesMovedBy,
} from '@certlane/protocol-frontends-domain';
import { CompositeStatement, guardedBy, StatementGate, unnestInsert } from '../sql/composite-statement';
import { randomId, readRow, RowRead, rowsOf } from '../sql/rows';

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
  /** The enrollment approval (of issuance, ADR 0065) a processing order waits for. */
  approval_id: string | null;
  /** RFC 8555 7.4: the validity the order asked for (ADR 0069). */
  not_before: Date | null;
  not_after: Date | null;
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
  /**
   * Read by the challenge's own reads: while it is processing, when the running attempt's lease
   * ends or the next attempt is due (RFC 8555 8.2's Retry-After).
   */
  retry_at?: Date | null;
}

/**
 * A challenge with its authorization, and whether an order of that authorization has another one
 * still pending (the client may be answering the order's challenges one after another).
 */
export interface AcmeChallengeWithAuthorization {
  challenge: AcmeChallengeRow;
  authorization: AcmeAuthorizationRow;
  othersPending: boolean;
}

/** A challenge taken for a validation attempt, with its attempts so far and its authorization. */
export type AcmeClaimedChallenge = AcmeChallengeRow & {
  attempts: number;
  authorization: AcmeAuthorizationRow;
};

/** An open order with the status and expiry of each of its authorizations. */
export interface AcmeOpenOrderState {
  id: string;
  status: OrderStatus;
  authorizations: { status: AuthorizationStatus; expires_at: Date }[];
}

/** An order as its resource shows it: with its authorizations and, once issued, its certificate. */
export interface AcmeOrderView extends AcmeOrderRow {
  /** Ordered by identifier type and value. */
  authorization_ids: string[];
  certificate_id: string | null;
}

const ORDER_COLUMNS =
  'id, account_id, profile_id, status, identifiers, expires_at, error, replaces, approval_id, not_before, not_after';

const CHALLENGE_COLUMNS = 'id, authorization_id, type, token, status, validated_at, error';

/** An authorization's columns read from alias `a` as `a_<column>`, beside another row's. */
const AUTHORIZATION_AS_A = [
  'id',
  'account_id',
  'identifier_type',
  'identifier_value',
  'wildcard',
  'status',
  'expires_at',
]
  .map((column) => `a.${column} AS a_${column}`)
  .join(', ');

function authorizationFromA(row: Record<string, unknown>): AcmeAuthorizationRow {
  return {
    id: row.a_id as string,
    account_id: row.a_account_id as string,
    identifier_type: row.a_identifier_type as AcmeAuthorizationRow['identifier_type'],
    identifier_value: row.a_identifier_value as string,
    wildcard: row.a_wildcard as boolean,
    status: row.a_status as AuthorizationStatus,
    expires_at: row.a_expires_at as Date,
  };
}

function challengeOf(row: Record<string, unknown>): AcmeChallengeRow {
  return {
    id: row.id as string,
    authorization_id: row.authorization_id as string,
    type: row.type as ChallengeType,
    token: row.token as string,
    status: row.status as ChallengeStatus,
    validated_at: row.validated_at as Date | null,
    error: row.error,
    ...(row.retry_at === undefined ? {} : { retry_at: row.retry_at as Date | null }),
  };
}

/**
 * Orders with their authorizations and challenges. Every status change is a compare-and-set
 * (`WHERE status = <from>`): the caller computes `to` with the domain state machine, and of two
 * replicas applying the same change only one sees `true`.
 */
export class OrderStore {
  constructor(private readonly executor: SqlExecutor) {}

  /**
   * Stores a new order: for each identifier a valid authorization of the account is reused when
   * it outlives `reuseUntil` (looked up for every identifier in one statement), else a pending one
   * is created with a challenge of each offered type. The authorizations, challenges, the order
   * and what `alongside` adds (its audit record) are one statement (ADR 0067 amendment), written
   * only when `gate` (a rate slot) lets it; the answer has the gate's answer, and no order when
   * the gate refused.
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
    /** RFC 8555 7.4: the validity asked for. */
    validity?: { notBefore: Date | null; notAfter: Date | null };
    reuseUntil: Date;
    challengeTypes: (identifier: AcmeIdentifier) => ChallengeType[];
    gate?: (statement: CompositeStatement) => StatementGate;
    alongside?: (statement: CompositeStatement, condition: string, orderId: string) => void;
  }): Promise<{ order: AcmeOrderView | null; authorizationIds: string[]; reused: number; gate: unknown }> {
    const wanted = input.identifiers.map((requested) => ({
      requested,
      ...authorizationIdentifier(requested),
    }));
    const types = wanted.map((w) => w.identifier.type);
    const values = wanted.map((w) => w.identifier.value);
    const reusable = await this.validAuthorizations(input.accountId, input.identifiers, input.reuseUntil);
    const reusedAt = new Map(reusable.map((row) => [Number(row.n) - 1, row]));
    const authorizationIds: string[] = [];
    const created: { id: string; type: string; value: string; wildcard: boolean }[] = [];
    const challenges: { id: string; authorizationId: string; type: string; token: string }[] = [];
    wanted.forEach(({ requested, identifier, wildcard }, n) => {
      const existing = reusedAt.get(n);
      if (existing) {
        authorizationIds.push(existing.id);
        return;
      }
      const id = randomId();
      authorizationIds.push(id);
      created.push({ id, ...identifier, wildcard });
      for (const type of input.challengeTypes(requested))
        challenges.push({ id: randomId(), authorizationId: id, type, token: randomId(32) });
    });
    const statement = new CompositeStatement();
    const gate = input.gate?.(statement);
    const written = gate?.condition ?? 'true';
    statement.with(
      'authorization_rows',
      unnestInsert(statement, 'acme_authorizations', written, [
        ['id', 'text', created.map((a) => a.id)],
        ['account_id', 'text', created.map(() => input.accountId)],
        ['identifier_type', 'text', created.map((a) => a.type)],
        ['identifier_value', 'text', created.map((a) => a.value)],
        ['wildcard', 'boolean', created.map((a) => a.wildcard)],
        ['expires_at', 'timestamptz', created.map(() => input.authorizationExpiresAt)],
      ]),
    );
    statement.with(
      'challenge_rows',
      unnestInsert(statement, 'acme_challenges', written, [
        ['id', 'text', challenges.map((c) => c.id)],
        ['authorization_id', 'text', challenges.map((c) => c.authorizationId)],
        ['type', 'text', challenges.map((c) => c.type)],
        ['token', 'text', challenges.map((c) => c.token)],
      ]),
    );
    const orderId = randomId();
    statement.with(
      'order_row',
      `INSERT INTO acme_orders (id, account_id, profile_id, identifiers, expires_at, replaces, not_before, not_after)
       SELECT ${statement.typed(orderId, 'text')}, ${statement.typed(input.accountId, 'text')},
              ${statement.typed(input.profileId, 'text')}, ${statement.typed(JSON.stringify(input.identifiers), 'jsonb')},
              ${statement.typed(input.expiresAt(reusable.map((row) => row.expires_at)), 'timestamptz')},
              ${statement.typed(input.replaces ?? null, 'text')},
              ${statement.typed(input.validity?.notBefore ?? null, 'timestamptz')},
              ${statement.typed(input.validity?.notAfter ?? null, 'timestamptz')}
        WHERE ${written}
       RETURNING ${ORDER_COLUMNS}`,
    );
    const linked = statement.typed(authorizationIds, 'text[]');
    statement.with(
      'links',
      `INSERT INTO acme_order_authorizations (order_id, authorization_id)
       SELECT order_row.id, unnest(${linked}) FROM order_row ON CONFLICT DO NOTHING`,
    );
    input.alongside?.(statement, written, orderId);
    // The order answered with its authorizations in the order `orderView` reads them.
    const [row] = await rowsOf<AcmeOrderView & { gate: unknown }>(
      this.executor,
      statement.text(
        `SELECT order_row.*, NULL::text AS certificate_id,
           ARRAY(SELECT DISTINCT ON (t.type, t.value, t.id) t.id
                 FROM unnest(${linked}, ${statement.typed(types, 'text[]')}, ${statement.typed(values, 'text[]')})
                      AS t(id, type, value)
                 ORDER BY t.type, t.value, t.id) AS authorization_ids,
           ${gate?.answer ?? 'NULL'} AS gate
         FROM (SELECT 1) AS one LEFT JOIN order_row ON true`,
      ),
      statement.values,
    );
    const { gate: answer, ...order } = row;
    return {
      order: order.id ? (order as AcmeOrderView) : null,
      authorizationIds,
      reused: reusable.length,
      gate: answer,
    };
  }

  /** An order with its authorizations and certificate, in one statement. */
  orderView(id: string): Promise<AcmeOrderView | null> {
    return readRow(this.executor, OrderStore.orderViewRead(id));
  }

  static orderViewRead(id: string): RowRead<AcmeOrderView> {
    return {
      id,
      select: (idParameter) =>
        `SELECT ${ORDER_COLUMNS},
           ARRAY(SELECT a.id FROM acme_authorizations a JOIN acme_order_authorizations oa ON oa.authorization_id = a.id
                 WHERE oa.order_id = o.id ORDER BY a.identifier_type, a.identifier_value, a.id) AS authorization_ids,
           (SELECT c.id FROM acme_certificates c WHERE c.order_id = o.id LIMIT 1) AS certificate_id
         FROM acme_orders o WHERE o.id = ${idParameter}`,
      read: (row) => row as unknown as AcmeOrderView,
    };
  }

  /**
   * For each identifier (its index `n`, from 1), the valid authorization of the account for it
   * that lives longest, if one lives past `until` (one statement for every identifier).
   */
  async validAuthorizations(
    accountId: string,
    identifiers: readonly AcmeIdentifier[],
    until: Date,
  ): Promise<{ n: string; id: string; expires_at: Date }[]> {
    const wanted = identifiers.map(authorizationIdentifier);
    return rowsOf<{ n: string; id: string; expires_at: Date }>(
      this.executor,
      `SELECT w.n, r.id, r.expires_at
         FROM unnest($2::text[], $3::text[], $4::boolean[]) WITH ORDINALITY AS w(type, value, wildcard, n)
         CROSS JOIN LATERAL (
           SELECT id, expires_at FROM acme_authorizations a
            WHERE a.account_id = $1 AND a.identifier_type = w.type AND a.identifier_value = w.value
              AND a.wildcard = w.wildcard AND a.status = 'valid' AND a.expires_at > $5
            ORDER BY a.expires_at DESC LIMIT 1) r`,
      [
        accountId,
        wanted.map((w) => w.identifier.type),
        wanted.map((w) => w.identifier.value),
        wanted.map((w) => w.wildcard),
        until,
      ],
    );
  }

  async order(id: string): Promise<AcmeOrderRow | null> {
    const rows = await rowsOf<AcmeOrderRow>(
      this.executor,
      `SELECT ${ORDER_COLUMNS} FROM acme_orders WHERE id = $1`,
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

  /**
   * RFC 8555 7.1.2.1: a page of the account's order ids, newest first, leaving out invalid orders
   * (expired pending and ready ones too); `after` is the last id of the previous page.
   */
  async ordersOf(accountId: string, limit: number, after?: string): Promise<string[]> {
    const rows = await rowsOf<{ id: string }>(
      this.executor,
      `SELECT id FROM acme_orders
        WHERE account_id = $1 AND status <> 'invalid'
          AND NOT (status IN ('pending', 'ready') AND expires_at <= now())
          AND ($3::text IS NULL
               OR (created_at, id) < (SELECT created_at, id FROM acme_orders WHERE id = $3 AND account_id = $1))
        ORDER BY created_at DESC, id DESC LIMIT $2`,
      [accountId, limit, after ?? null],
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
      `SELECT ${CHALLENGE_COLUMNS}, claimed_until AS retry_at FROM acme_challenges WHERE id = $1`,
      [id],
    );
    return rows[0] ?? null;
  }

  /** A challenge with its authorization, in one statement. */
  challengeWithAuthorization(id: string): Promise<AcmeChallengeWithAuthorization | null> {
    return readRow(this.executor, OrderStore.challengeWithAuthorizationRead(id));
  }

  static challengeWithAuthorizationRead(id: string): RowRead<AcmeChallengeWithAuthorization> {
    return {
      id,
      select: (idParameter) =>
        `SELECT c.id, c.authorization_id, c.type, c.token, c.status, c.validated_at, c.error,
                c.claimed_until AS retry_at, ${AUTHORIZATION_AS_A},
           EXISTS (SELECT 1 FROM acme_order_authorizations mine
                     JOIN acme_order_authorizations other
                       ON other.order_id = mine.order_id AND other.authorization_id <> mine.authorization_id
                     JOIN acme_authorizations oa ON oa.id = other.authorization_id AND oa.status = 'pending'
                    WHERE mine.authorization_id = a.id) AS others_pending
         FROM acme_challenges c JOIN acme_authorizations a ON a.id = c.authorization_id WHERE c.id = ${idParameter}`,
      read: (row) => ({
        challenge: challengeOf(row),
        authorization: authorizationFromA(row),
        othersPending: row.others_pending === true,
      }),
    };
  }

  /** An authorization with its challenges (ordered by type), in one statement. */
  authorizationWithChallenges(
    id: string,
  ): Promise<{ authorization: AcmeAuthorizationRow; challenges: AcmeChallengeRow[] } | null> {
    return readRow(this.executor, OrderStore.authorizationWithChallengesRead(id));
  }

  static authorizationWithChallengesRead(
    id: string,
  ): RowRead<{ authorization: AcmeAuthorizationRow; challenges: AcmeChallengeRow[] }> {
    return {
      id,
      select: (idParameter) =>
        `SELECT a.id, ${AUTHORIZATION_AS_A},
           COALESCE((SELECT json_agg(json_build_object('id', c.id, 'authorization_id', c.authorization_id,
                       'type', c.type, 'token', c.token, 'status', c.status, 'validated_at', c.validated_at,
                       'error', c.error) ORDER BY c.type)
                     FROM acme_challenges c WHERE c.authorization_id = a.id), '[]'::json) AS challenges
         FROM acme_authorizations a WHERE a.id = ${idParameter}`,
      read: (row) => ({
        authorization: authorizationFromA(row),
        challenges: (row.challenges as Record<string, unknown>[]).map((c) =>
          challengeOf({ ...c, validated_at: c.validated_at ? new Date(c.validated_at as string) : null }),
        ),
      }),
    };
  }

  /**
   * The pending and ready orders an authorization is part of (`of.authorizationId`), or the one
   * order `of.orderId` while pending or ready, each with the status and expiry of every one of its
   * authorizations (to move them when one changes), in one statement.
   */
  async openOrderStates(
    of: { authorizationId: string } | { orderId: string },
  ): Promise<AcmeOpenOrderState[]> {
    const rows = await rowsOf<{
      id: string;
      status: OrderStatus;
      authorizations: { status: AuthorizationStatus; expires_at: string }[];
    }>(
      this.executor,
      `SELECT o.id, o.status,
         (SELECT json_agg(json_build_object('status', a.status, 'expires_at', a.expires_at))
          FROM acme_authorizations a JOIN acme_order_authorizations oa ON oa.authorization_id = a.id
          WHERE oa.order_id = o.id) AS authorizations
       FROM acme_orders o
       WHERE ${'authorizationId' in of ? 'o.id IN (SELECT order_id FROM acme_order_authorizations WHERE authorization_id = $1)' : 'o.id = $1'}
         AND o.status IN ('pending', 'ready')`,
      ['authorizationId' in of ? of.authorizationId : of.orderId],
    );
    return rows.map((row) => ({
      id: row.id,
      status: row.status,
      authorizations: (row.authorizations ?? []).map((a) => ({
        status: a.status,
        expires_at: new Date(a.expires_at),
      })),
    }));
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
       WHERE oa.order_id = $1 ORDER BY a.identifier_type, a.identifier_value, a.id`,
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
    const statement = new CompositeStatement();
    const sql = orderStatusUpdate(statement, { id, from, to, error });
    return (await rowsOf(this.executor, sql, statement.values)).length === 1;
  }

  /**
   * Finalize under a certificate profile requiring approval: ready -> processing with the
   * approval it waits for, in one compare-and-set.
   */
  async awaitApproval(id: string, approvalId: string): Promise<boolean> {
    const rows = await rowsOf<{ id: string }>(
      this.executor,
      `UPDATE acme_orders SET status = 'processing', approval_id = $2, updated_at = now()
       WHERE id = $1 AND status = 'ready' RETURNING id`,
      [id, approvalId],
    );
    return rows.length === 1;
  }

  /** Compare-and-set of an authorization's status; with `validForMs`, it expires that long from now. */
  async setAuthorizationStatus(
    id: string,
    from: AuthorizationStatus,
    to: AuthorizationStatus,
    validForMs?: number,
  ): Promise<boolean> {
    const statement = new CompositeStatement();
    const sql = authorizationStatusUpdate(statement, { id, from, to, validForMs });
    return (await rowsOf(this.executor, sql, statement.values)).length === 1;
  }

  async setChallengeStatus(
    id: string,
    from: ChallengeStatus,
    to: ChallengeStatus,
    error?: unknown,
  ): Promise<boolean> {
    const statement = new CompositeStatement();
    const sql = challengeStatusUpdate(statement, { id, from, to, error });
    return (await rowsOf(this.executor, sql, statement.values)).length === 1;
  }

  /**
   * The end of a validation in one statement (ADR 0067 amendment): the challenge's compare-and-set
   * from processing and, only when it took, the parts `alongside` adds (the attempt, a failure's
   * rate event, the audit record) and the authorization's compare-and-set. Whether it took.
   */
  async concludeValidation(input: {
    challenge: { id: string; to: ChallengeStatus; error?: unknown };
    authorization?: AuthorizationStatusChange;
    alongside: (statement: CompositeStatement, condition: string) => void;
  }): Promise<{ validatedAt: Date | null } | null> {
    const statement = new CompositeStatement();
    statement.with('challenge', challengeStatusUpdate(statement, { ...input.challenge, from: 'processing' }));
    const took = guardedBy('challenge');
    input.alongside(statement, took);
    if (input.authorization)
      statement.with('authorization_row', authorizationStatusUpdate(statement, input.authorization, took));
    // dns-persist-01's persistUntil also ends the open orders relying on the authorization: no
    // certificate is issued on that validation after it (draft-ietf-acme-dns-persist-02 4.1 item 5).
    if (input.authorization?.validUntil)
      statement.with(
        'orders_capped',
        `UPDATE acme_orders o SET expires_at = LEAST(o.expires_at, ${statement.value(input.authorization.validUntil)}::timestamptz)
           FROM acme_order_authorizations oa
          WHERE oa.authorization_id = ${statement.value(input.authorization.id)} AND o.id = oa.order_id
            AND o.status IN ('pending', 'ready') AND ${took} RETURNING o.id`,
      );
    const [row] = await rowsOf<{ took: boolean; validated_at: Date | null }>(
      this.executor,
      statement.text(`SELECT ${took} AS took, (SELECT validated_at FROM challenge) AS validated_at`),
      statement.values,
    );
    return row.took ? { validatedAt: row.validated_at } : null;
  }

  /**
   * Takes a processing challenge for one validation attempt, for `leaseMs`: no other replica takes
   * it until the lease runs out (a replica lost mid-validation is replaced then). With `from`
   * `'pending'`, it is the client's response (RFC 8555 7.5.1) and the claim in one compare-and-set
   * (pending -> processing, claimed). With `'retry-now'`, it is the client's repeated response
   * (RFC 8555 8.2): a processing challenge waiting for its next attempt is taken at once (at least
   * `EARLY_RETRY_SPACING_MS` after the failure), one that an attempt holds is not. The claimed challenge with its attempts and authorization, or null
   * when not taken.
   */
  async claimForValidation(
    id: string,
    leaseMs: number,
    from: 'pending' | 'processing' | 'retry-now' = 'processing',
  ): Promise<AcmeClaimedChallenge | null> {
    const [row] = await rowsOf<Record<string, unknown>>(
      this.executor,
      `UPDATE acme_challenges c
       SET status = 'processing', claimed_until = now() + $2 * interval '1 millisecond', attempts = c.attempts + 1,
         awaiting_retry_since = NULL
       FROM acme_authorizations a
       WHERE c.id = $1 AND a.id = c.authorization_id
         AND c.status = CASE WHEN $3::text = 'pending' THEN 'pending' ELSE 'processing' END
         AND (c.claimed_until IS NULL OR c.claimed_until <= now() OR ($3::text = 'retry-now'
           AND c.awaiting_retry_since <= now() - $4 * interval '1 millisecond'))
       RETURNING c.id, c.authorization_id, c.type, c.token, c.status, c.validated_at, c.error, c.attempts,
         ${AUTHORIZATION_AS_A}`,
      [id, leaseMs, from, EARLY_RETRY_SPACING_MS],
    );
    if (!row) return null;
    return { ...challengeOf(row), attempts: row.attempts as number, authorization: authorizationFromA(row) };
  }

  /**
   * RFC 8555 8.2: hands a processing challenge back for another attempt after `delayMs`, its
   * problem shown meanwhile (its lease is moved to then, so the sweep of any replica takes it up,
   * or the client's repeated response sooner). False when it is no longer processing.
   */
  async retryLater(id: string, delayMs: number, error: unknown): Promise<boolean> {
    const rows = await rowsOf<{ id: string }>(
      this.executor,
      `UPDATE acme_challenges SET claimed_until = now() + $2 * interval '1 millisecond', error = $3,
         awaiting_retry_since = now()
       WHERE id = $1 AND status = 'processing' RETURNING id`,
      [id, delayMs, JSON.stringify(error)],
    );
    return rows.length === 1;
  }

  /**
   * Ends every unfinished order of a deactivated account (RFC 8555 7.3.6, the domain's
   * `account-deactivated`) with `problem` as its error, and deactivates its pending and valid
   * authorizations, in the caller's transaction. Answers each order ended with the enrollment
   * approval it was waiting for, if any, for the caller to withdraw.
   */
  async endOrdersOfAccount(
    accountId: string,
    problem: unknown,
  ): Promise<{ id: string; approval_id: string | null }[]> {
    await rowsOf(
      this.executor,
      `UPDATE acme_authorizations SET status = 'deactivated', updated_at = now()
       WHERE account_id = $1 AND status = ANY($2::text[]) RETURNING id`,
      [
        accountId,
        AUTHORIZATION_STATUSES.filter((status) => nextAuthorizationStatus(status, { kind: 'deactivate' }).ok),
      ],
    );
    return rowsOf<{ id: string; approval_id: string | null }>(
      this.executor,
      `UPDATE acme_orders SET status = 'invalid', error = $3::jsonb, updated_at = now()
       WHERE account_id = $1 AND status = ANY($2::text[]) RETURNING id, approval_id`,
      [accountId, statusesMovedBy({ kind: 'account-deactivated' }), JSON.stringify(problem)],
    );
  }

  /**
   * Processing orders waiting for an approval whose expiry has passed (the approval ended by then,
   * ADR 0068): the sweep asks issuance how it ended, in case the decision's event was missed.
   */
  async awaitingEndedApprovals(now: Date, limit = 100): Promise<{ id: string; approval_id: string }[]> {
    return rowsOf<{ id: string; approval_id: string }>(
      this.executor,
      `SELECT id, approval_id FROM acme_orders
        WHERE status = 'processing' AND approval_id IS NOT NULL AND expires_at <= $1
        ORDER BY expires_at LIMIT $2`,
      [now, limit],
    );
  }

  /**
   * Ends abandoned processing orders (the order event `abandoned`) in one conditional UPDATE:
   * without an approval, those a finalize took before `finalizeTakenBefore`; with one, those that
   * expired before `approvalExpiredBefore` and whose decision the sweep could still not read.
   */
  async abandon(input: {
    finalizeTakenBefore: Date;
    approvalExpiredBefore: Date;
    finalizeError: unknown;
    approvalError: unknown;
  }): Promise<string[]> {
    const rows = await rowsOf<{ id: string }>(
      this.executor,
      `UPDATE acme_orders SET status = 'invalid', updated_at = now(),
         error = CASE WHEN approval_id IS NULL THEN $3::jsonb ELSE $4::jsonb END
       WHERE status = 'processing'
         AND ((approval_id IS NULL AND updated_at <= $1) OR (approval_id IS NOT NULL AND expires_at <= $2))
       RETURNING id`,
      [
        input.finalizeTakenBefore,
        input.approvalExpiredBefore,
        JSON.stringify(input.finalizeError),
        JSON.stringify(input.approvalError),
      ],
    );
    return rows.map((row) => row.id);
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

/**
 * An authorization's status move; with `validForMs`, it expires that long from now, but never
 * after `validUntil` (dns-persist-01's persistUntil), both read against the database's clock.
 */
export interface AuthorizationStatusChange {
  id: string;
  from: AuthorizationStatus;
  to: AuthorizationStatus;
  validForMs?: number;
  validUntil?: Date;
}

/** A challenge's compare-and-set (with its problem document when it turns invalid), returning its id. */
function challengeStatusUpdate(
  statement: CompositeStatement,
  change: { id: string; from: ChallengeStatus; to: ChallengeStatus; error?: unknown },
): string {
  const to = statement.value(change.to);
  const error = statement.value(change.error === undefined ? null : JSON.stringify(change.error));
  // A valid challenge drops the problem of an earlier attempt that was retried.
  return `UPDATE acme_challenges SET status = ${to},
      error = CASE WHEN ${to} = 'valid' THEN NULL ELSE COALESCE(${error}, error) END,
      validated_at = CASE WHEN ${to} = 'valid' THEN now() ELSE validated_at END, claimed_until = NULL
    WHERE id = ${statement.value(change.id)} AND status = ${statement.value(change.from)} RETURNING id, validated_at`;
}

/** An authorization's compare-and-set, when `condition` holds, returning its id. */
function authorizationStatusUpdate(
  statement: CompositeStatement,
  change: AuthorizationStatusChange,
  condition = 'true',
): string {
  const validFor = `${statement.value(change.validForMs ?? null)}::bigint`;
  const until = `${statement.value(change.validUntil ?? null)}::timestamptz`;
  return `UPDATE acme_authorizations SET status = ${statement.value(change.to)}, updated_at = now(),
      expires_at = CASE WHEN ${validFor} IS NULL THEN expires_at
                        ELSE LEAST(now() + ${validFor} * interval '1 millisecond', ${until}) END
    WHERE id = ${statement.value(change.id)} AND status = ${statement.value(change.from)} AND ${condition} RETURNING id`;
}

/** An order's compare-and-set (with its problem document when it turns invalid), returning its id. */
export function orderStatusUpdate(
  statement: CompositeStatement,
  change: { id: string; from: OrderStatus; to: OrderStatus; error?: unknown },
): string {
  const error = statement.value(change.error === undefined ? null : JSON.stringify(change.error));
  return `UPDATE acme_orders SET status = ${statement.value(change.to)}, error = COALESCE(${error}, error), updated_at = now()
    WHERE id = ${statement.value(change.id)} AND status = ${statement.value(change.from)} RETURNING id`;
}
