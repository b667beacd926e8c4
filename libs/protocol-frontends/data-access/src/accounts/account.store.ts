import { JWK } from 'jose';
import { SqlExecutor } from '@certlane/platform';
import { AccountEvent, AccountStatus, nextAccountStatus } from '@certlane/protocol-frontends-domain';
import { randomId, RowRead, rowsOf } from '../sql/rows';

export interface AcmeAccountRow {
  id: string;
  jwk: JWK;
  jwk_thumbprint: string;
  status: AccountStatus;
  contact: string[];
  terms_of_service_agreed: boolean;
  /** The URL of the terms agreed to (RFC 8555 7.3.3); null when none, or agreed before it was kept. */
  terms_of_service_url: string | null;
  /** The EAB key the account was created with (RFC 8555 7.3.4), and the owner and team it gave. */
  eab_key_id: string | null;
  owner: string | null;
  team: string | null;
  created_at: Date;
  updated_at: Date;
}

const COLUMN_NAMES = [
  'id',
  'jwk',
  'jwk_thumbprint',
  'status',
  'contact',
  'terms_of_service_agreed',
  'terms_of_service_url',
  'eab_key_id',
  'owner',
  'team',
  'created_at',
  'updated_at',
] as const;
const COLUMNS = COLUMN_NAMES.join(', ');
/** The account's columns from alias `acct` as `acct_<column>`, beside a resource's row. */
const ACCOUNT_AS_ACCT = COLUMN_NAMES.map((column) => `acct.${column} AS acct_${column}`).join(', ');

/** ACME accounts (RFC 8555 7.3), one per key thumbprint. */
export class AccountStore {
  constructor(private readonly executor: SqlExecutor) {}

  /**
   * Creates the account of a key, or returns the one that key already has (RFC 8555 7.3.1):
   * `created` tells which. Two replicas creating for the same key end with one account.
   */
  async createOrFind(input: {
    jwk: JWK;
    thumbprint: string;
    contact: string[];
    termsOfServiceAgreed: boolean;
    /** The URL of the terms agreed to, when the server has terms and the account agreed. */
    termsOfServiceUrl?: string | null;
    binding?: { eabKeyId: string; owner: string | null; team: string | null };
  }): Promise<{ account: AcmeAccountRow; created: boolean }> {
    const inserted = await rowsOf<AcmeAccountRow>(
      this.executor,
      `INSERT INTO acme_accounts (id, jwk, jwk_thumbprint, contact, terms_of_service_agreed, eab_key_id, owner, team, terms_of_service_url)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (jwk_thumbprint) DO NOTHING RETURNING ${COLUMNS}`,
      [
        randomId(),
        JSON.stringify(input.jwk),
        input.thumbprint,
        JSON.stringify(input.contact),
        input.termsOfServiceAgreed,
        input.binding?.eabKeyId ?? null,
        input.binding?.owner ?? null,
        input.binding?.team ?? null,
        input.termsOfServiceUrl ?? null,
      ],
    );
    if (inserted.length) return { account: inserted[0], created: true };
    const existing = await this.byThumbprint(input.thumbprint);
    if (!existing) throw new Error('an account conflicted on its key and then vanished');
    return { account: existing, created: false };
  }

  /**
   * Consumes `nonce` (true exactly once, as NonceStore.consume) and reads account `id`, and with
   * `also` the resource the request is about, in one statement: every request signed with a kid
   * needs the first two, most the third. `also` is null when there is no such row.
   */
  async consumeNonceAndGet<T = never>(
    nonce: string,
    id: string,
    also?: RowRead<T>,
  ): Promise<{ nonceOk: boolean; account: AcmeAccountRow | null; also: T | null }> {
    const [row] = await rowsOf<Record<string, unknown>>(
      this.executor,
      `WITH spent AS (DELETE FROM acme_nonces WHERE nonce = $1 AND expires_at > now() RETURNING nonce)
       SELECT EXISTS (SELECT 1 FROM spent) AS nonce_ok, ${ACCOUNT_AS_ACCT}${also ? ', resource.*' : ''}
       FROM (SELECT 1) AS one LEFT JOIN acme_accounts acct ON acct.id = $2
       ${also ? `LEFT JOIN LATERAL (${also.select('$3')}) AS resource ON true` : ''}`,
      also ? [nonce, id, also.id] : [nonce, id],
    );
    const { nonce_ok: nonceOk, ...rest } = row;
    const account: Record<string, unknown> = {};
    const resource: Record<string, unknown> = {};
    for (const [column, value] of Object.entries(rest)) {
      if (column.startsWith('acct_')) account[column.slice(5)] = value;
      else resource[column] = value;
    }
    return {
      nonceOk: nonceOk as boolean,
      account: account.id ? (account as unknown as AcmeAccountRow) : null,
      also: also && resource.id != null ? also.read(resource) : null,
    };
  }

  /**
   * The thumbprints of every key the account has held, its current key first, then the others
   * newest first (draft-ietf-acme-dns-persist-02 4.2; migration 0021), and its status; null when
   * there is no such account.
   */
  async keyHistory(id: string): Promise<{ thumbprints: string[]; status: string } | null> {
    const rows = await rowsOf<{ thumbprints: string[]; status: string }>(
      this.executor,
      `SELECT array_prepend(jwk_thumbprint, prior_thumbprints) AS thumbprints, status
         FROM acme_accounts WHERE id = $1`,
      [id],
    );
    return rows[0] ?? null;
  }

  async byId(id: string): Promise<AcmeAccountRow | null> {
    const rows = await rowsOf<AcmeAccountRow>(
      this.executor,
      `SELECT ${COLUMNS} FROM acme_accounts WHERE id = $1`,
      [id],
    );
    return rows[0] ?? null;
  }

  /** A page of accounts, newest first, optionally of one status, with the total. */
  async list(page: {
    offset: number;
    limit: number;
    status?: AccountStatus;
  }): Promise<{ rows: (AcmeAccountRow & { order_count: number })[]; total: number }> {
    const where = page.status ? 'WHERE status = $1' : 'WHERE $1::text IS NULL';
    const [rows, counted] = await Promise.all([
      rowsOf<AcmeAccountRow & { order_count: number }>(
        this.executor,
        `SELECT ${COLUMNS}, (SELECT count(*)::int FROM acme_orders o WHERE o.account_id = a.id) AS order_count
         FROM acme_accounts a ${where} ORDER BY created_at DESC, id LIMIT $2 OFFSET $3`,
        [page.status ?? null, page.limit, page.offset],
      ),
      rowsOf<{ n: number }>(this.executor, `SELECT count(*)::int AS n FROM acme_accounts ${where}`, [
        page.status ?? null,
      ]),
    ]);
    return { rows, total: counted[0]?.n ?? 0 };
  }

  async orderCount(id: string): Promise<number> {
    const rows = await rowsOf<{ n: number }>(
      this.executor,
      'SELECT count(*)::int AS n FROM acme_orders WHERE account_id = $1',
      [id],
    );
    return rows[0]?.n ?? 0;
  }

  async byThumbprint(thumbprint: string): Promise<AcmeAccountRow | null> {
    const rows = await rowsOf<AcmeAccountRow>(
      this.executor,
      `SELECT ${COLUMNS} FROM acme_accounts WHERE jwk_thumbprint = $1`,
      [thumbprint],
    );
    return rows[0] ?? null;
  }

  /** Replaces the contacts of a valid account; null when it is not (or no longer) valid. */
  async updateContact(id: string, contact: string[]): Promise<AcmeAccountRow | null> {
    const rows = await rowsOf<AcmeAccountRow>(
      this.executor,
      `UPDATE acme_accounts SET contact = $2, updated_at = now() WHERE id = $1 AND status = 'valid' RETURNING ${COLUMNS}`,
      [id, JSON.stringify(contact)],
    );
    return rows[0] ?? null;
  }

  /** Records agreement to the terms at `url` (RFC 8555 7.3.3); null when the account is not valid. */
  async agreeToTerms(id: string, url: string): Promise<AcmeAccountRow | null> {
    const rows = await rowsOf<AcmeAccountRow>(
      this.executor,
      `UPDATE acme_accounts SET terms_of_service_agreed = true, terms_of_service_url = $2, updated_at = now()
       WHERE id = $1 AND status = 'valid' RETURNING ${COLUMNS}`,
      [id, url],
    );
    return rows[0] ?? null;
  }

  /**
   * Key rollover (RFC 8555 7.3.5) as a compare-and-set on the old key: `changed`, or the account
   * that already holds the new key (`conflict`, RFC 8555 7.3.5 step 9; `taken` when it got it
   * concurrently, which aborts a surrounding transaction), or `stale` when the account's key or
   * status changed meanwhile.
   */
  async changeKey(
    id: string,
    oldThumbprint: string,
    newJwk: JWK,
    newThumbprint: string,
  ): Promise<
    | { result: 'changed' }
    | { result: 'conflict'; accountId: string }
    | { result: 'stale' }
    | { result: 'taken' }
  > {
    const holder = await this.byThumbprint(newThumbprint);
    if (holder) return { result: 'conflict', accountId: holder.id };
    try {
      const rows = await rowsOf<{ id: string }>(
        this.executor,
        `UPDATE acme_accounts SET jwk = $3, jwk_thumbprint = $4, updated_at = now(),
           prior_thumbprints = array_prepend($2::text, prior_thumbprints)
         WHERE id = $1 AND jwk_thumbprint = $2 AND status = 'valid' RETURNING id`,
        [id, oldThumbprint, JSON.stringify(newJwk), newThumbprint],
      );
      return rows.length ? { result: 'changed' } : { result: 'stale' };
    } catch (error) {
      // Another rollover to the same key won the race between the lookup and the update; the
      // caller's transaction is aborted, so the caller looks the winner up after it.
      if ((error as { code?: string }).code === '23505') return { result: 'taken' };
      throw error;
    }
  }

  /**
   * Applies an account event through the domain state machine, as a compare-and-set on the
   * status read: a concurrent change makes it answer the refusal of the status it lost to.
   */
  async transition(id: string, event: AccountEvent): Promise<ReturnType<typeof nextAccountStatus> | null> {
    const account = await this.byId(id);
    if (!account) return null;
    const result = nextAccountStatus(account.status, event);
    if (!result.ok) return result;
    const rows = await rowsOf<{ id: string }>(
      this.executor,
      `UPDATE acme_accounts SET status = $3, updated_at = now() WHERE id = $1 AND status = $2 RETURNING id`,
      [id, account.status, result.to],
    );
    return rows.length ? result : this.transition(id, event);
  }
}
