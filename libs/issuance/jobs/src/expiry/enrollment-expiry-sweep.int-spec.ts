import { join, resolve } from 'node:path';
import { ApprovalDto, resolvePage } from '@certlane/contracts';
import { UnitOfWork } from '@certlane/issuance-data-access';
import { ApprovalGate, ApprovalRepository } from '@certlane/issuance-governance';
import {
  CertlaneConfig,
  CertlaneLogger,
  OutboxRelay,
  runMigrations,
  ServiceOutbox,
} from '@certlane/platform';
import { createTestDatabase, TestDatabase } from '@certlane/testing';
import { DataSource } from 'typeorm';
import { EnrollmentExpirySweep } from './enrollment-expiry-sweep';

const HOUR_MS = 3_600_000;

/**
 * The enrollment approval expiry sweep (ADR 0065, amended) on real Postgres with two "replicas",
 * each with its own pool: a pending external enrollment past its deadline is rejected exactly
 * once, with one `approval.decided` event and one `approval.rejected` audit record, however the
 * replicas' passes overlap; one still within its deadline, or already decided, is left alone.
 */
describe(EnrollmentExpirySweep.name, () => {
  let database: TestDatabase;
  let dataSources: DataSource[];
  let replicas: { sweep: EnrollmentExpirySweep; gate: ApprovalGate; approvals: ApprovalRepository }[];
  const now = new Date();

  /** Opens `count` enrollment approvals due at `expiresAt` (as SCEP does), their ids. */
  async function open(prefix: string, count: number, expiresAt: Date): Promise<string[]> {
    const { approvals } = replicas[0];
    return dataSources[0].transaction(async (manager) => {
      const ids: string[] = [];
      for (let i = 0; i < count; i++) {
        const { row } = await approvals.insertEnrollment(manager, {
          key: `scep:profile:${prefix}-${i}`,
          profile_id: null,
          requested_by: `scep:${prefix}`,
          expires_at: expiresAt,
          request: {
            source: 'SCEP',
            subject: `CN=${prefix}-${i}`,
            dns_names: [],
            key_algorithm: 'RSA-2048',
            csr_pem: '-----BEGIN CERTIFICATE REQUEST-----\n-----END CERTIFICATE REQUEST-----\n',
            issuer_id: null,
            owner_id: null,
            team_id: null,
            reference: { scep_profile: 'held', transaction_id: `${prefix}-${i}` },
            tags: {},
          },
        });
        ids.push(row.id);
      }
      return ids;
    });
  }

  /** Per approval id: how many outbox rows of `subject` (and audit `action`) name it. */
  async function outboxCounts(subject: string, action?: string): Promise<Map<string, number>> {
    const rows: { id: string; actor: string; n: number }[] = await dataSources[0].query(
      `SELECT coalesce(envelope->'data'->>'resource_id', envelope->'data'->>'id') AS id,
              envelope->>'actor_id' AS actor, count(*)::int AS n
         FROM issuance.outbox
        WHERE subject = $1 AND ($2::text IS NULL OR envelope->'data'->>'action' = $2)
        GROUP BY 1, 2`,
      [subject, action ?? null],
    );
    expect(new Set(rows.map((row) => row.actor))).toEqual(new Set(rows.length ? ['system'] : []));
    return new Map(rows.map((row) => [row.id, row.n]));
  }

  const statusOf = async (id: string) => (await replicas[0].approvals.find(id))!.status;

  beforeAll(async () => {
    database = await createTestDatabase('enrollexpiry');
    await runMigrations({
      databaseUrl: database.url,
      schema: 'issuance',
      directory: join(resolve(__dirname, '../../../../..'), 'migrations', 'issuance'),
      demoSeed: false,
    });
    dataSources = await Promise.all(
      [0, 1].map(() =>
        new DataSource({
          type: 'postgres',
          url: database.url,
          schema: 'issuance',
          synchronize: false,
          extra: { options: '-c search_path=issuance,public' },
        }).initialize(),
      ),
    );
    replicas = dataSources.map((dataSource) => {
      const outbox = new ServiceOutbox(
        'issuance',
        { kick: () => undefined } as unknown as OutboxRelay,
        'issuance',
      );
      const approvals = new ApprovalRepository(dataSource);
      const gate = new ApprovalGate(approvals, outbox);
      const sweep = new EnrollmentExpirySweep(
        new UnitOfWork(dataSource, outbox),
        gate,
        outbox,
        { expiry: { sweepIntervalMs: 60_000 } } as unknown as CertlaneConfig,
        { info: () => undefined, warn: () => undefined } as unknown as CertlaneLogger,
      );
      return { sweep, gate, approvals };
    });
  }, 60_000);

  afterAll(async () => {
    await Promise.all((dataSources ?? []).map((ds) => ds.destroy()));
    await database?.drop();
  });

  it('rejects each expired enrollment once although two replicas sweep at the same time; live and decided ones stay', async () => {
    const expired = await open('expired', 120, new Date(now.getTime() - HOUR_MS));
    const [atDeadline] = await open('deadline', 1, now);
    const [live] = await open('live', 1, new Date(now.getTime() + HOUR_MS));
    const [approved] = await open('approved', 1, new Date(now.getTime() - HOUR_MS));
    await dataSources[0].query(
      `UPDATE issuance.approvals SET status = 'approved', decided_by = 'bob', decided_at = now() WHERE id = $1`,
      [approved],
    );

    // Small batches, so the two passes interleave batch by batch.
    const [first, second] = await Promise.all(replicas.map(({ sweep }) => sweep.sweep(now, 7)));
    const due = [...expired, atDeadline];
    expect([...first, ...second].sort()).toEqual([...due].sort());
    expect(first.filter((id) => second.includes(id))).toEqual([]);

    const decided = await outboxCounts('issuance.v1.approval.decided');
    const audited = await outboxCounts('issuance.v1.audit.recorded', 'approval.rejected');
    for (const id of due) {
      expect([id, decided.get(id), audited.get(id)]).toEqual([id, 1, 1]);
      expect(await statusOf(id)).toBe('rejected');
    }
    expect([decided.size, audited.size]).toEqual([due.length, due.length]);
    expect(await statusOf(live)).toBe('pending');
    expect(await statusOf(approved)).toBe('approved');

    // Nothing is left for later passes.
    expect(await Promise.all(replicas.map(({ sweep }) => sweep.sweep(now, 7)))).toEqual([[], []]);
  });

  it('gives each expired enrollment to one of two transactions that reach for it together', async () => {
    const expired = await open('race', 20, new Date(now.getTime() - HOUR_MS));
    // Each replica rejects in a transaction held open until both have tried.
    let arrived = 0;
    let release!: () => void;
    const bothTried = new Promise<void>((resolve) => (release = resolve));
    const taken = await Promise.all(
      replicas.map(({ gate }, i) =>
        dataSources[i].transaction(async (manager) => {
          const rows = await gate.rejectExpiredEnrollments(manager, now, 100);
          if (++arrived === replicas.length) release();
          await bothTried;
          return rows.map((row) => row.id);
        }),
      ),
    );
    expect([...taken[0], ...taken[1]].sort()).toEqual([...expired].sort());
    expect(taken[0].filter((id) => taken[1].includes(id))).toEqual([]);
  });

  it('leaves the approvals list without them as pending; they read as expired, rejected by the system', async () => {
    const [swept] = await open('listed', 1, new Date(now.getTime() - HOUR_MS));
    const [live] = await open('listed-live', 1, new Date(now.getTime() + HOUR_MS));
    expect(await replicas[1].sweep.sweep(now)).toEqual([swept]);
    const pending = await replicas[0].approvals.list(
      { status: 'pending', per_page: 100 },
      resolvePage({ per_page: 100 }),
    );
    const pendingIds = pending.data.map((approval: ApprovalDto) => approval.id);
    expect([pendingIds.includes(live), pendingIds.includes(swept)]).toEqual([true, false]);
    const rejected = await replicas[0].approvals.list(
      { status: 'rejected', per_page: 100 },
      resolvePage({ per_page: 100 }),
    );
    expect(rejected.data.find((approval) => approval.id === swept)).toMatchObject({
      status: 'rejected',
      decided_by: 'system',
      reason: 'expired',
      enrollment: { state: 'expired' },
    });
  });
});
