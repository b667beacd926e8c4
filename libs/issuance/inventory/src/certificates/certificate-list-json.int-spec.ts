import { CertificateDto } from '@certlane/contracts';
import { httpsRequest, startTestSystem, TestSystem } from '@certlane/testing';
import { Client } from 'pg';
import { certificateDto, CertificateRow } from './certificate.repository';
import {
  certificateListAnchorsQuery,
  CertificateListFilter,
  certificateListPageQuery,
  certificateListTextPageQuery,
  certificateListWhere,
  SeekPage,
} from '../inventory/certificate-list.query';
import { certificatePageJson, CertificateTextRow } from '../inventory/certificate-page-json';
import { ANCHOR_SPACING, seekFromAnchors } from '../inventory/list-anchors';

const STATUSES = [
  'Pending',
  'Active',
  'Expiring',
  'Expired',
  'RenewalInProgress',
  'Failed',
  'Revoked',
  'Archived',
] as const;

/**
 * The list's JSON written from text columns (ADR 0034) against the DTO mapping it replaces, on real
 * Postgres and through the real gateway: the same bytes for a varied set of rows, and deep pages
 * read from the anchors equal to plain OFFSET pages, also after another writer changed the list.
 */
describe('certificate list JSON and anchors', () => {
  let system: TestSystem;
  let db: Client;
  let token: string;

  const api = (path: string) =>
    httpsRequest(`${system.services['api-gateway'].url}${path}`, {
      ca: system.ca,
      headers: { authorization: `Bearer ${token}` },
    });

  /** Today's mapping: the rows of the plain page query through certificateDto. */
  async function dtoPage(
    filter: CertificateListFilter,
    perPage: number,
    offset: number,
  ): Promise<CertificateDto[]> {
    const query = certificateListPageQuery(filter, { per_page: perPage, offset });
    return (await db.query<CertificateRow>(query.text, query.values)).rows.map(certificateDto);
  }

  /** The new path: text columns, JSON written by certificatePageJson. */
  async function jsonPage(filter: CertificateListFilter, seek: SeekPage): Promise<string> {
    const query = certificateListTextPageQuery(filter, seek);
    return certificatePageJson((await db.query<CertificateTextRow>(query.text, query.values)).rows);
  }

  async function total(filter: CertificateListFilter): Promise<number> {
    // The list's own filter: Archived rows only when the status asks for them (ADR 0043).
    const { clause, values } = certificateListWhere(filter);
    const { rows } = await db.query(`SELECT count(*)::int AS n FROM certificates ${clause}`, values);
    return rows[0].n;
  }

  beforeAll(async () => {
    system = await startTestSystem('listjson', ['auth', 'issuance', 'api-gateway']);
    token = system.env.SERVICE_AUTH_SECRET!;
    db = new Client({ connectionString: system.database.url });
    await db.connect();
    await db.query('SET search_path TO issuance');
    await db.query(`INSERT INTO teams (id, name) VALUES ('t1', 'T1'), ('t2', 'T2')`);
    await db.query(`INSERT INTO owners (id, name, team_id) VALUES ('o1', 'O1', 't1'), ('o2', 'O2', 't2')`);
    const policy = (await db.query('SELECT id FROM renewal_policies ORDER BY created_at, id LIMIT 1')).rows[0]
      .id;
    // A varied set: every status, nulls and empty arrays, tags with escapes, unicode and key
    // orders, timestamps with microseconds, revocations.
    const tags = [
      {},
      { team: 'payments' },
      { note: 'é ✓ 日本 "quoted" back\\slash\nnew line\ttab\u0001\u001f', clé: 'wert' },
      { zeta: '1', alpha: '2', mid: '' },
      { b: 'x', a: 'y', '10': 'ten', '9': 'nine' },
      // Not array indexes (leading zero, above 2^32 - 2): these keep their jsonb position.
      { z: 'last', '4294967295': 'big', '007': 'bond', '1': 'one', '4294967294': 'max' },
    ];
    const sans = [[], ['a.example.com'], ['b.example.com', '*.b.example.com', 'xn--bcher-kva.example']];
    for (let i = 0; i < 40; i++) {
      const status = STATUSES[i % STATUSES.length];
      await db.query(
        `INSERT INTO certificates (id, name, common_name, sans, environment, owner_id, team_id, issuer_id,
           renewal_policy_id, profile_id, agent_id, source, status, key_algorithm, tags, not_before, expires_at,
           current_version_id, last_renewed_at, revoked_at, revocation_reason, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, 'iss-local', $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18,
           $19, $20, $21, $22)`,
        [
          `json-${String(i).padStart(3, '0')}`,
          i % 3 === 0 ? `Zertifikat ${i} — « ünïcödé » 証明書` : `cert ${i}`,
          `svc${i}.example.com`,
          sans[i % sans.length],
          ['prod', 'staging', '', 'dev'][i % 4],
          i % 5 === 0 ? null : `o${(i % 2) + 1}`,
          i % 7 === 0 ? null : `t${(i % 2) + 1}`,
          policy,
          '',
          i % 4 ? '' : 'agent-1',
          ['', 'EST', 'SCEP', 'API', 'Agent'][i % 5],
          status,
          ['ECDSA-P256', 'ECDSA-P384', 'RSA-2048', 'RSA-3072', 'RSA-4096', 'Ed25519'][i % 6],
          JSON.stringify(tags[i % tags.length]),
          i % 3 ? null : '2026-01-02T03:04:05.678901Z',
          i % 3 ? null : `2027-0${(i % 9) + 1}-15T23:59:59.999999Z`,
          i % 2 ? null : `v-${i}`,
          i % 4 === 1 ? '2026-03-01T00:00:00.000500Z' : null,
          status === 'Revoked' ? '2026-05-05T05:05:05.050505Z' : null,
          status === 'Revoked' ? 'keyCompromise' : null,
          `2025-12-31T23:59:59.${String(i * 24_999).padStart(6, '0')}Z`,
          '2026-02-28T12:00:00Z',
        ],
      );
    }
  }, 90_000);

  afterAll(async () => {
    await db?.end();
    await system?.stop();
  });

  it('writes from text columns exactly the JSON the DTO mapping and JSON.stringify write', async () => {
    const filters: CertificateListFilter[] = [
      {},
      ...STATUSES.map((status) => ({ status })),
      { owner_id: 'o1' },
    ];
    for (const filter of filters) {
      for (const [perPage, offset] of [
        [500, 0],
        [7, 3],
      ]) {
        const data = await jsonPage(filter, { per_page: perPage, offset });
        const expected = await dtoPage(filter, perPage, offset);
        expect(JSON.parse(data)).toEqual(expected);
        expect(data).toBe(JSON.stringify(expected));
      }
    }
    // An empty page is an empty array, not null.
    expect(await jsonPage({ status: 'Active' }, { per_page: 50, offset: 10_000 })).toBe('[]');
  });

  it('answers GET /api/v1/certificates with the same body bytes and headers as before', async () => {
    for (const [query, filter, perPage, page] of [
      ['per_page=500', {}, 500, 1],
      ['status=Revoked&per_page=2&page=2', { status: 'Revoked' }, 2, 2],
      ['owner_id=o2', { owner_id: 'o2' }, 50, 1],
      ['team_id=t1&environment=prod', { environment: 'prod', team_id: 't1' }, 50, 1],
      ['status=Failed&page=99', { status: 'Failed' }, 50, 99],
    ] as const) {
      const response = await api(`/api/v1/certificates?${query}`);
      expect(response.status).toBe(200);
      expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
      const expected = {
        data: await dtoPage(filter, perPage, (page - 1) * perPage),
        total: await total(filter),
        page,
        per_page: perPage,
      };
      expect(response.json()).toEqual(expected);
      expect(response.text).toBe(JSON.stringify(expected));
      expect(Number(response.headers['content-length'])).toBe(Buffer.byteLength(response.text));
    }
    // Errors are unchanged: the error body with the spec's status.
    const bad = await api('/api/v1/certificates?status=Shiny');
    expect(bad.status).toBe(400);
    expect(bad.json()).toMatchObject({ code: 'validation_failed' });
  });

  describe('deep pages', () => {
    beforeAll(async () => {
      // 3,500 more rows, statuses spread without following id order.
      await db.query(
        `INSERT INTO certificates (id, name, common_name, issuer_id, renewal_policy_id, status, environment)
         SELECT 'deep-' || lpad(i::text, 5, '0'), 'deep', 'deep.example.com', 'iss-local',
                (SELECT id FROM renewal_policies ORDER BY created_at, id LIMIT 1),
                (ARRAY['Active', 'Active', 'Expiring', 'Failed', 'Pending'])[(i * 7919) % 5 + 1],
                (ARRAY['prod', 'dev'])[(i * 104729) % 2 + 1]
         FROM generate_series(1, 3500) AS i`,
      );
    });

    it('reads the same rows from the anchors as OFFSET does, at any offset (SQL, small spacing)', async () => {
      for (const filter of [
        {},
        { status: 'Active' as const },
        { environment: 'dev', status: 'Failed' as const },
      ]) {
        for (const spacing of [7, 100, 1000]) {
          const anchorsQuery = certificateListAnchorsQuery(filter, spacing);
          const anchors = (await db.query<{ id: string }>(anchorsQuery.text, anchorsQuery.values)).rows.map(
            (row) => row.id,
          );
          const all = await dtoPage(filter, 10_000, 0);
          expect(anchors).toEqual(all.filter((_, i) => (i + 1) % spacing === 0).map((row) => row.id));
          for (const offset of [
            0,
            6,
            7,
            8,
            99,
            100,
            101,
            999,
            1000,
            1001,
            1999,
            all.length - 3,
            all.length + 5,
          ]) {
            const seek = seekFromAnchors(offset, anchors, spacing);
            const data = await jsonPage(filter, { per_page: 13, ...seek });
            expect(JSON.parse(data)).toEqual(await dtoPage(filter, 13, offset));
          }
        }
      }
    });

    it('serves deep pages over HTTP equal to OFFSET pages, also after another writer changed the list', async () => {
      const check = async (filter: Record<string, string>, perPage: number, page: number) => {
        const params = new URLSearchParams({ ...filter, per_page: String(perPage), page: String(page) });
        const response = await api(`/api/v1/certificates?${params}`);
        expect(response.status).toBe(200);
        const expected = {
          data: await dtoPage(filter, perPage, (page - 1) * perPage),
          total: await total(filter),
          page,
          per_page: perPage,
        };
        expect(response.text).toBe(JSON.stringify(expected));
        return expected;
      };
      const deep: [Record<string, string>, number, number][] = [
        [{}, 50, 21],
        [{}, 50, 40],
        [{}, 37, 60],
        [{}, 50, 71],
        [{}, 500, 8],
        [{}, 50, 1000],
        [{ status: 'Active' }, 50, 21],
        [{ status: 'Active' }, 100, 14],
        [{ environment: 'prod' }, 50, 30],
      ];
      expect(ANCHOR_SPACING).toBeLessThanOrEqual(1000);
      for (const [filter, perPage, page] of deep) await check(filter, perPage, page);
      expect((await check({}, 50, 40)).data).toHaveLength(50);

      // Another replica (here: SQL straight into the table) inserts rows before the anchors and
      // moves rows out of Active: totals change, so the anchors are rebuilt and pages stay exact.
      await db.query(
        `INSERT INTO certificates (id, name, common_name, issuer_id, renewal_policy_id, status)
         SELECT 'aaa-' || i, 'early', 'early.example.com', 'iss-local',
                (SELECT id FROM renewal_policies ORDER BY created_at, id LIMIT 1), 'Active'
         FROM generate_series(1, 17) AS i`,
      );
      await db.query(
        `UPDATE certificates SET status = 'Expired' WHERE id IN ('deep-00101', 'deep-00102', 'deep-00110')`,
      );
      for (const [filter, perPage, page] of deep) await check(filter, perPage, page);
    });
  });
});
