import { join, resolve } from 'node:path';
import { runMigrations } from '@certlane/platform';
import { createTestDatabase, TestDatabase } from '@certlane/testing';
import { DataSource } from 'typeorm';
import { JobRepository } from './job.repository';

/**
 * The claim behind server-mode issuance (ADR 0024): however many replicas reach for one Pending
 * job at the same moment, exactly one gets it, and a job already Running or finished is not
 * claimed again.
 */
describe(`${JobRepository.name}.claimPending`, () => {
  let database: TestDatabase;
  let dataSources: DataSource[];
  let jobs: JobRepository[];

  beforeAll(async () => {
    database = await createTestDatabase('jobclaim');
    await runMigrations({
      databaseUrl: database.url,
      schema: 'issuance',
      directory: join(resolve(__dirname, '../../../../..'), 'migrations', 'issuance'),
      demoSeed: false,
    });
    // Four "replicas", each with its own pool.
    dataSources = await Promise.all(
      Array.from({ length: 4 }, () =>
        new DataSource({
          type: 'postgres',
          url: database.url,
          schema: 'issuance',
          synchronize: false,
          extra: { options: '-c search_path=issuance,public' },
        }).initialize(),
      ),
    );
    jobs = dataSources.map((ds) => new JobRepository(ds));
    await dataSources[0].query(
      `INSERT INTO issuance.issuers (id, name, kind, config_sealed) VALUES ('iss-claim', 'Claim', 'local_ca', 'v1.x')`,
    );
    await dataSources[0].query(
      `INSERT INTO issuance.certificates (id, name, common_name, issuer_id, renewal_policy_id)
       VALUES ('claim-cert', 'claim', 'claim.example.com', 'iss-claim', 'rp-default')`,
    );
  });

  afterAll(async () => {
    await Promise.all((dataSources ?? []).map((ds) => ds.destroy()));
    await database?.drop();
  });

  const pendingJob = async (type = 'Renewal') => {
    const [row] = await dataSources[0].query(
      `INSERT INTO issuance.jobs (id, type, status, certificate_id) VALUES (gen_random_uuid()::text, $1, 'Pending', 'claim-cert')
       RETURNING id`,
      [type],
    );
    return row.id as string;
  };

  /** Each replica claims in a transaction held open until all have tried, then marks its claim Running. */
  async function race(id: string): Promise<number> {
    let arrived = 0;
    let release!: () => void;
    const allTried = new Promise<void>((resolve) => (release = resolve));
    const results = await Promise.all(
      jobs.map((repository) =>
        repository.dataSource.transaction(async (manager) => {
          const claimed = await repository.claimPending(manager, id);
          if (++arrived === jobs.length) release();
          await allTried;
          if (claimed) await repository.setStatus(manager, id, 'Running');
          return claimed !== null;
        }),
      ),
    );
    return results.filter(Boolean).length;
  }

  it('gives a Pending job to exactly one of four concurrent claimants', async () => {
    for (let i = 0; i < 5; i++) {
      const id = await pendingJob();
      expect(await race(id)).toBe(1);
      const [row] = await dataSources[0].query('SELECT status, attempts FROM issuance.jobs WHERE id = $1', [
        id,
      ]);
      expect(row).toEqual({ status: 'Running', attempts: 1 });
    }
  });

  it('does not claim a job that is Running, finished, or not an issuance or renewal', async () => {
    const running = await pendingJob();
    expect(await race(running)).toBe(1);
    expect(await race(running)).toBe(0);
    const deployment = await pendingJob('Deployment');
    expect(await race(deployment)).toBe(0);
  });
});
