import { AGENT_WORK_LIMIT } from '@certlane/contracts';
import { startTestSystem, TestSystem } from '@certlane/testing';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { insertCertificate, insertJob } from '@certlane/issuance-inventory/testing';
import { AgentWorkRepository } from './agent-work.repository';

/**
 * The poll of one agent, as a single statement (the form the poll had before ADR 0036): the
 * reference the batched poll (POLL_MANY, every agent of a batch in one statement) must equal.
 */
const SINGLE_AGENT_POLL = `
  WITH mine AS (
    SELECT j.id FROM jobs j WHERE j.agent_id = $1 AND j.status IN ('Pending', 'AwaitingCSR')
    UNION
    SELECT j.id FROM certificates c JOIN jobs j ON j.certificate_id = c.id
     WHERE c.agent_id = $1 AND c.agent_id <> '' AND j.status IN ('Pending', 'AwaitingCSR'))
  SELECT j.id FROM mine JOIN jobs j ON j.id = mine.id JOIN certificates c ON c.id = j.certificate_id
   WHERE ((j.type = 'Deployment' AND j.status = 'Pending')
      OR (j.type IN ('Issuance', 'Renewal') AND j.status = 'AwaitingCSR'))
   ORDER BY j.created_at, j.id
   LIMIT ${AGENT_WORK_LIMIT}`;

describe('the agent work poll, batched (ADR 0036)', () => {
  let system: TestSystem;
  let db: Client;
  let dataSource: DataSource;
  let repository: AgentWorkRepository;

  beforeAll(async () => {
    system = await startTestSystem('agentpoll', ['issuance']);
    db = new Client({ connectionString: system.database.url });
    await db.connect();
    await db.query('SET search_path TO issuance');
    dataSource = new DataSource({
      type: 'postgres',
      url: system.database.url,
      extra: { options: '-c search_path=issuance,public' },
    });
    await dataSource.initialize();
    repository = new AgentWorkRepository(dataSource);

    const job = async (certificate: string, type: string, status: string, agent: string, at: string) => {
      const id = await insertJob(db, {
        certificate_id: certificate,
        type: type as never,
        status: status as never,
      });
      await db.query('UPDATE jobs SET agent_id = $2, created_at = $3 WHERE id = $1', [id, agent, at]);
      return id;
    };
    const certificate = async (agent: string) => {
      const id = await insertCertificate(db);
      await db.query('UPDATE certificates SET agent_id = $2 WHERE id = $1', [id, agent]);
      return id;
    };
    // a1: work through its certificate and through its own jobs; jobs it does not act on.
    const ofA1 = await certificate('a1');
    await job(ofA1, 'Renewal', 'AwaitingCSR', '', '2026-01-01T00:00:03Z');
    await job(ofA1, 'Deployment', 'Pending', '', '2026-01-01T00:00:01Z');
    await job(ofA1, 'Renewal', 'Pending', '', '2026-01-01T00:00:02Z');
    await job(ofA1, 'Deployment', 'Completed', '', '2026-01-01T00:00:02Z');
    // A job on a1's certificate assigned to a2: the work of both.
    await job(ofA1, 'Deployment', 'Pending', 'a2', '2026-01-01T00:00:04Z');
    const neutral = await certificate('');
    await job(neutral, 'Issuance', 'AwaitingCSR', 'a2', '2026-01-01T00:00:00Z');
    await job(neutral, 'Issuance', 'AwaitingCSR', '', '2026-01-01T00:00:00Z');
    // a3: more open jobs than one poll returns, some with equal times (ordered by id then).
    const ofA3 = await certificate('a3');
    for (let i = 0; i < AGENT_WORK_LIMIT + 5; i++) {
      await job(ofA3, 'Deployment', 'Pending', '', `2026-01-01T00:${String(i % 50).padStart(2, '0')}:00Z`);
    }
  }, 120_000);

  afterAll(async () => {
    await dataSource?.destroy();
    await db?.end();
    await system?.stop();
  });

  const reference = async (agent: string) =>
    (await db.query(SINGLE_AGENT_POLL, [agent])).rows.map((row) => row.id);

  it("gives every agent of a batch exactly its own poll's jobs, in order, at most the limit", async () => {
    const agents = ['a1', 'a2', 'a3', 'a1', 'nobody'];
    const batched = await repository.workOf(agents);
    expect(batched).toHaveLength(agents.length);
    for (const [i, agent] of agents.entries()) {
      expect(batched[i].map((item) => item.job_id)).toEqual(await reference(agent));
    }
    expect(batched[0].map((item) => item.type)).toEqual(['Deployment', 'Renewal', 'Deployment']);
    expect(batched[1]).toHaveLength(2);
    expect(batched[2]).toHaveLength(AGENT_WORK_LIMIT);
    expect(batched[3]).toEqual(batched[0]);
    expect(batched[4]).toEqual([]);
    // A batch of one agent (asked once or twice) runs the single-agent statement: the same jobs.
    for (const agent of ['a1', 'a2', 'a3']) {
      const [alone, again] = await repository.workOf([agent, agent]);
      expect(alone).toEqual(batched[agents.indexOf(agent)]);
      expect(again).toEqual(alone);
    }
  });

  it('answers concurrent polls, coalesced or not, as each alone', async () => {
    const agents = ['a3', 'a1', 'a2', 'nobody', 'a1'];
    const answers = await Promise.all(agents.map((agent) => repository.work(agent)));
    for (const [i, agent] of agents.entries()) {
      expect(answers[i].map((item) => item.job_id)).toEqual(await reference(agent));
    }
    expect(answers[1][0]).toMatchObject({
      type: 'Deployment',
      status: 'Pending',
      created_at: '2026-01-01T00:00:01.000Z',
      version_id: null,
    });
  });
});
