import { SqlExecutor } from '@certlane/platform';
import { OrderStatus } from '@certlane/protocol-frontends-domain';
import { CompositeStatement, rowInsert } from '../sql/composite-statement';
import { rowsOf } from '../sql/rows';
import { AcmeOrderRow } from '../orders/order.store';

/** An order as operators list it, with its certificate when it produced one. */
export interface AcmeOrderOperatorRow extends AcmeOrderRow {
  created_at: Date;
  updated_at: Date;
  certificate_id: string | null;
  serial_hex: string | null;
  renewal_id: string | null;
}

export type ValidationAttemptResult = 'valid' | 'invalid' | 'retry';

export interface AcmeValidationAttemptRow {
  id: string;
  challenge_id: string;
  authorization_id: string;
  account_id: string;
  type: string;
  identifier_type: 'dns' | 'ip';
  identifier_value: string;
  result: ValidationAttemptResult;
  error: unknown;
  remote_address: string | null;
  attempted_at: Date;
}

/** What renewal-info/{cert_id} reads of a certificate (RFC 9773 4.2). */
export interface AcmeRenewalInfoRow {
  id: string;
  not_before: Date;
  not_after: Date;
  revoked_at: Date | null;
  replaced_by_id: string | null;
  renew_early_start: Date | null;
  renew_early_end: Date | null;
  explanation_url: string | null;
}

const ORDER_COLUMNS = `o.id, o.account_id, o.profile_id, o.status, o.identifiers, o.expires_at, o.error, o.replaces, o.approval_id,
  o.not_before, o.not_after, o.created_at, o.updated_at, c.id AS certificate_id, c.serial_hex, c.renewal_id`;
const ATTEMPT_COLUMNS = `id::text AS id, challenge_id, authorization_id, account_id, type, identifier_type,
  identifier_value, result, error, remote_address, attempted_at`;
const RENEWAL_COLUMNS =
  'id, not_before, not_after, revoked_at, replaced_by_id, renew_early_start, renew_early_end, explanation_url';

/**
 * The operators' reads of the ACME server (issue 19 point 10) and the two writes that are theirs
 * alone: validation attempts (by the validator, in the transaction of the challenge change) and
 * early renewal (RFC 9773 4.2).
 */
export class AcmeOperationsStore {
  constructor(private readonly executor: SqlExecutor) {}

  async listOrders(page: {
    offset: number;
    limit: number;
    accountId?: string;
    status?: OrderStatus;
    identifier?: string;
  }): Promise<{ rows: AcmeOrderOperatorRow[]; total: number }> {
    // The identifier matches a dns or ip value exactly (wildcards as written: *.example.com).
    const where = `WHERE ($1::text IS NULL OR o.account_id = $1) AND ($2::text IS NULL OR o.status = $2)
      AND ($3::text IS NULL OR o.identifiers @> jsonb_build_array(jsonb_build_object('value', $3::text)))`;
    const filters = [page.accountId ?? null, page.status ?? null, page.identifier ?? null];
    const [rows, counted] = await Promise.all([
      rowsOf<AcmeOrderOperatorRow>(
        this.executor,
        `SELECT ${ORDER_COLUMNS} FROM acme_orders o LEFT JOIN acme_certificates c ON c.order_id = o.id
         ${where} ORDER BY o.created_at DESC, o.id LIMIT $4 OFFSET $5`,
        [...filters, page.limit, page.offset],
      ),
      rowsOf<{ n: number }>(this.executor, `SELECT count(*)::int AS n FROM acme_orders o ${where}`, filters),
    ]);
    return { rows, total: counted[0]?.n ?? 0 };
  }

  async order(id: string): Promise<AcmeOrderOperatorRow | null> {
    const rows = await rowsOf<AcmeOrderOperatorRow>(
      this.executor,
      `SELECT ${ORDER_COLUMNS} FROM acme_orders o LEFT JOIN acme_certificates c ON c.order_id = o.id WHERE o.id = $1`,
      [id],
    );
    return rows[0] ?? null;
  }

  /** The authorizations of an order with their challenges, for its detail view. */
  async authorizationsOf(orderId: string): Promise<
    {
      id: string;
      identifier_type: 'dns' | 'ip';
      identifier_value: string;
      wildcard: boolean;
      status: string;
      expires_at: Date;
      challenges: { id: string; type: string; status: string; validated_at: string | null; error: unknown }[];
    }[]
  > {
    return rowsOf(
      this.executor,
      `SELECT z.id, z.identifier_type, z.identifier_value, z.wildcard, z.status, z.expires_at,
         COALESCE((SELECT jsonb_agg(jsonb_build_object('id', c.id, 'type', c.type, 'status', c.status,
                    'validated_at', c.validated_at, 'error', c.error) ORDER BY c.type)
                   FROM acme_challenges c WHERE c.authorization_id = z.id), '[]'::jsonb) AS challenges
       FROM acme_order_authorizations oa JOIN acme_authorizations z ON z.id = oa.authorization_id
       WHERE oa.order_id = $1 ORDER BY z.identifier_type, z.identifier_value`,
      [orderId],
    );
  }

  /** One attempt; run it in the transaction that changes the challenge. */
  async recordAttempt(input: ValidationAttempt): Promise<void> {
    const statement = new CompositeStatement();
    await this.executor.query(validationAttemptInsert(statement, input), statement.values);
  }

  async listAttempts(page: {
    offset: number;
    limit: number;
    accountId?: string;
    orderId?: string;
    authorizationId?: string;
    challengeId?: string;
    identifier?: string;
    result?: ValidationAttemptResult;
  }): Promise<{ rows: AcmeValidationAttemptRow[]; total: number }> {
    const where = `WHERE ($1::text IS NULL OR account_id = $1)
      AND ($2::text IS NULL OR authorization_id IN (SELECT authorization_id FROM acme_order_authorizations WHERE order_id = $2))
      AND ($3::text IS NULL OR authorization_id = $3) AND ($4::text IS NULL OR challenge_id = $4)
      AND ($5::text IS NULL OR identifier_value = $5) AND ($6::text IS NULL OR result = $6)`;
    const filters = [
      page.accountId ?? null,
      page.orderId ?? null,
      page.authorizationId ?? null,
      page.challengeId ?? null,
      page.identifier ?? null,
      page.result ?? null,
    ];
    const [rows, counted] = await Promise.all([
      rowsOf<AcmeValidationAttemptRow>(
        this.executor,
        `SELECT ${ATTEMPT_COLUMNS} FROM acme_validation_attempts ${where}
         ORDER BY attempted_at DESC, id DESC LIMIT $7 OFFSET $8`,
        [...filters, page.limit, page.offset],
      ),
      rowsOf<{ n: number }>(
        this.executor,
        `SELECT count(*)::int AS n FROM acme_validation_attempts ${where}`,
        filters,
      ),
    ]);
    return { rows, total: counted[0]?.n ?? 0 };
  }

  async renewalInfo(renewalId: string): Promise<AcmeRenewalInfoRow | null> {
    const rows = await rowsOf<AcmeRenewalInfoRow>(
      this.executor,
      `SELECT ${RENEWAL_COLUMNS} FROM acme_certificates WHERE renewal_id = $1`,
      [renewalId],
    );
    return rows[0] ?? null;
  }

  async certificate(id: string): Promise<
    | (AcmeRenewalInfoRow & {
        order_id: string;
        account_id: string;
        serial_hex: string;
        renewal_id: string;
        renew_early_by: string | null;
      })
    | null
  > {
    const rows = await rowsOf<
      AcmeRenewalInfoRow & {
        order_id: string;
        account_id: string;
        serial_hex: string;
        renewal_id: string;
        renew_early_by: string | null;
      }
    >(
      this.executor,
      `SELECT ${RENEWAL_COLUMNS}, order_id, account_id, serial_hex, renewal_id, renew_early_by
       FROM acme_certificates WHERE id = $1`,
      [id],
    );
    return rows[0] ?? null;
  }

  /** Moves the suggested window (RFC 9773 4.2); null when the certificate is unknown or revoked. */
  async renewEarly(
    id: string,
    window: { start: Date; end: Date },
    explanationUrl: string | null,
    by: string,
  ): Promise<AcmeRenewalInfoRow | null> {
    const rows = await rowsOf<AcmeRenewalInfoRow>(
      this.executor,
      `UPDATE acme_certificates SET renew_early_start = $2, renew_early_end = $3, explanation_url = $4,
         renew_early_by = $5
       WHERE id = $1 AND revoked_at IS NULL RETURNING ${RENEWAL_COLUMNS}`,
      [id, window.start, window.end, explanationUrl, by],
    );
    return rows[0] ?? null;
  }

  /**
   * Moves the suggested window of every live certificate of an account or of a profile (RFC 9773
   * 4.2) in one statement: each gets `start .. min(end, not_after)` (earlyRenewalWindow per row),
   * and revoked, expired (`not_after <= start`) and replaced ones are left as they are (their
   * renewal-info already answers a window: past, or the end of their lifetime). Answers how many
   * moved; the rows stay in the database (100,000 of them need not cross the wire).
   */
  async renewEarlyAll(
    criteria:
      | { accountId: string }
      | { profileId: string }
      | { issuerId: string; authorityKeyIds: readonly Uint8Array[] },
    window: { start: Date; end: Date },
    explanationUrl: string | null,
    by: string,
  ): Promise<number> {
    // The account's certificates through acme_certificates_renewable_idx (account_id, ... WHERE
    // replaced_by_id IS NULL); a profile's through their orders; CAs' by the authority key
    // identifier that starts their renewal ids (RFC 9773 4.1: `<base64url(AKI)>.<serial>`).
    const selected =
      'accountId' in criteria
        ? 'c.account_id = $1'
        : 'profileId' in criteria
          ? 'c.order_id IN (SELECT o.id FROM acme_orders o WHERE o.profile_id = $1)'
          : `c.issuer_id = $6 AND split_part(c.renewal_id, '.', 1) = ANY($1::text[])`;
    const key =
      'accountId' in criteria
        ? criteria.accountId
        : 'profileId' in criteria
          ? criteria.profileId
          : criteria.authorityKeyIds.map((keyId) => Buffer.from(keyId).toString('base64url'));
    const rows = await rowsOf<{ n: number }>(
      this.executor,
      `WITH moved AS (
         UPDATE acme_certificates c SET renew_early_start = $2, renew_early_end = LEAST($3, c.not_after),
           explanation_url = $4, renew_early_by = $5
         WHERE ${selected} AND c.revoked_at IS NULL AND c.replaced_by_id IS NULL AND c.not_after > $2
         RETURNING 1)
       SELECT count(*)::int AS n FROM moved`,
      [
        key,
        window.start,
        window.end,
        explanationUrl,
        by,
        ...('issuerId' in criteria ? [criteria.issuerId] : []),
      ],
    );
    return rows[0]?.n ?? 0;
  }
}

/** A validation attempt of a challenge (issue 19 point 10): what `validationAttemptInsert` records. */
export interface ValidationAttempt {
  challengeId: string;
  authorizationId: string;
  accountId: string;
  type: string;
  identifier: { type: string; value: string };
  result: ValidationAttemptResult;
  error?: unknown;
  remoteAddress?: string | null;
}

/** The INSERT of one attempt, as a part of the statement that changes the challenge when `condition` holds. */
export function validationAttemptInsert(
  statement: CompositeStatement,
  input: ValidationAttempt,
  condition = 'true',
): string {
  return rowInsert(statement, 'acme_validation_attempts', condition, [
    ['challenge_id', 'text', input.challengeId],
    ['authorization_id', 'text', input.authorizationId],
    ['account_id', 'text', input.accountId],
    ['type', 'text', input.type],
    ['identifier_type', 'text', input.identifier.type],
    ['identifier_value', 'text', input.identifier.value],
    ['result', 'text', input.result],
    ['error', 'jsonb', input.error === undefined ? null : JSON.stringify(input.error)],
    ['remote_address', 'text', input.remoteAddress ?? null],
  ]);
}
