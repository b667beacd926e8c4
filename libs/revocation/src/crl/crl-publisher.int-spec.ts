import { createPrivateKey, KeyObject, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CertlaneError, ErrorCode, IssuerCaInfo, SignDigestRequest } from '@certlane/contracts';
import { CertlaneConfig, CertlaneLogger, MessageBus, runMigrations } from '@certlane/platform';
import { createSelfSignedCa, parseCrl, SoftwareKeyProvider, toPem, verifyCrl } from '@certlane/pki';
import {
  createTestDatabase,
  eventually,
  migrationsBefore,
  serviceMigrationsDir,
  TestDatabase,
} from '@certlane/testing';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { IssuedSerials } from '../issued/issued-serials';
import { IssuerCaDirectory } from '../issuer-ca.directory';
import { RevocationFiles } from '../publication/revocation-files';
import { RevocationRepository } from '../revocations/revocation.repository';
import { CrlPublisher } from './crl-publisher';
import { CrlRepository } from './crl.repository';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { p256 } = require('@noble/curves/p256') as {
  p256: {
    sign(hash: Uint8Array, key: Uint8Array, opts: { prehash: boolean }): { toDERRawBytes(): Uint8Array };
  };
};

const ISSUER = 'iss-local';
/** The CA name every CA of this test has: a re-keyed issuing CA keeps its name (review L3). */
const SUBJECT: [string, string][] = [['CN', 'Certlane Issuing CA']];

interface TestCa {
  info: IssuerCaInfo;
  key: KeyObject;
  pem: string;
}

async function makeCa(caId: string): Promise<TestCa> {
  const { signer, handle } = await new SoftwareKeyProvider().generate({ algorithm: 'ECDSA', curve: 'P-256' });
  const now = Date.now();
  const ca = await createSelfSignedCa({
    subject: SUBJECT,
    signer,
    notBefore: new Date(now - 60_000),
    notAfter: new Date(now + 86_400_000),
  });
  const pem = toPem('CERTIFICATE', ca.der);
  return {
    key: createPrivateKey({ key: handle.reference as Buffer, format: 'der', type: 'pkcs8' }),
    pem,
    info: {
      issuer_id: ISSUER,
      kind: 'local_ca',
      capabilities: { crl: true, ocsp: true },
      ca_id: caId,
      ca_certificate_pem: pem,
      chain_pem: pem,
      signature_algorithm: 'ecdsa-with-SHA256',
      cas: [],
    } as IssuerCaInfo,
  };
}

/**
 * CrlPublisher with the real CrlRepository and RevocationRepository on a migrated `revocation`
 * schema; issuance is a fake `sign-digest` that signs with the CA's key (so the CRLs verify), can
 * fail, and looks at Postgres while it signs. Review findings M1 (on-demand builds coalesced,
 * no transaction held while waiting for the signature), M3 (a release whose rebuild failed is
 * rebuilt by the next sweep) and L3 (a CRL number never restarts for a CA name of the issuer).
 */
describe('CrlPublisher on Postgres', () => {
  let database: TestDatabase;
  let dataSource: DataSource;
  let observer: Client;
  let publisher: CrlPublisher;
  const cas = new Map<string, TestCa>();
  const signing = {
    count: 0,
    delayMs: 0,
    fail: false,
    /** Sessions of the test database inside a transaction while a signature was awaited. */
    openTransactions: [] as number[],
  };

  const openTransactions = async () =>
    Number(
      (
        await observer.query(
          `SELECT count(*) AS n FROM pg_stat_activity
           WHERE datname = current_database() AND pid <> pg_backend_pid() AND state LIKE 'idle in transaction%'`,
        )
      ).rows[0].n,
    );

  const bus = {
    async request(subject: string, request: SignDigestRequest) {
      if (subject !== 'issuance.v1.sign-digest') throw new Error(`unexpected ${subject}`);
      signing.count++;
      signing.openTransactions.push(await openTransactions());
      if (signing.delayMs) await new Promise((resolve) => setTimeout(resolve, signing.delayMs));
      if (signing.fail) throw new CertlaneError(ErrorCode.UpstreamTimeout, 'issuance did not answer');
      const key = cas.get(request.ca_id!)!.key;
      const d = Buffer.from(key.export({ format: 'jwk' }).d as string, 'base64url');
      const digest = Buffer.from(request.digest_base64, 'base64');
      return {
        signature_base64: Buffer.from(p256.sign(digest, d, { prehash: false }).toDERRawBytes()).toString(
          'base64',
        ),
        signature_algorithm: 'ecdsa-with-SHA256',
      };
    },
  } as unknown as MessageBus;

  const stored = async (caId: string) => {
    const { rows } = await observer.query(
      'SELECT crl_number, der FROM revocation.crl_state WHERE issuer_id = $1 AND ca_id = $2',
      [ISSUER, caId],
    );
    return rows[0] as { crl_number: string; der: Buffer } | undefined;
  };

  beforeAll(async () => {
    database = await createTestDatabase('crlpublisher');
    await runMigrations({
      databaseUrl: database.url,
      schema: 'revocation',
      directory: serviceMigrationsDir('revocation'),
      demoSeed: false,
    });
    dataSource = new DataSource({
      type: 'postgres',
      url: database.url,
      extra: { options: '-c search_path=revocation,public', max: 10 },
    });
    await dataSource.initialize();
    observer = new Client({ connectionString: database.url });
    await observer.connect();
    for (const id of ['ca-aaaa0001', 'ca-bbbb0002', 'ca-cccc0003', 'ca-dddd0004'])
      cas.set(id, await makeCa(id));
    publisher = replica();
  }, 60_000);

  /** A CrlPublisher as one replica of the service has it (its own memory, the shared database). */
  function replica(publishDir?: string): CrlPublisher {
    const directory = {
      require: async (_issuer: string, _capability: string, caId?: string) =>
        cas.get(caId ?? 'ca-bbbb0002')!.info,
    } as unknown as IssuerCaDirectory;
    const config = {
      revocation: { crlSweepIntervalMs: 3600_000, crlRefreshBeforeMs: 12 * 3600_000, publishDir },
    } as unknown as CertlaneConfig;
    const logger = {
      info: () => undefined,
      warn: () => undefined,
      error: () => undefined,
      debug: () => undefined,
    } as unknown as CertlaneLogger;
    const files = new RevocationFiles(config, logger);
    const serials = { caOf: async () => undefined } as unknown as IssuedSerials;
    const created = new CrlPublisher(
      bus,
      logger,
      config,
      directory,
      new CrlRepository(dataSource),
      new RevocationRepository(dataSource),
      serials,
      files,
    );
    replicas.push(created);
    return created;
  }
  const replicas: CrlPublisher[] = [];

  afterEach(() => {
    signing.delayMs = 0;
    signing.fail = false;
  });

  afterAll(async () => {
    for (const created of replicas) created.onApplicationShutdown();
    await observer?.end();
    await dataSource?.destroy();
    await database?.drop();
  });

  it('L3: numbers the CRLs of a new CA above those of an earlier CA of the issuer with the same name', async () => {
    let last = 0n;
    for (let i = 0; i < 5; i++) last = (await publisher.rebuild(ISSUER, 'ca-aaaa0001')).crl_number;
    expect(last).toBe(5n);
    const rekeyed = await publisher.rebuild(ISSUER, 'ca-bbbb0002');
    expect(rekeyed.crl_number).toBeGreaterThan(5n);
    const older = parseCrl((await stored('ca-aaaa0001'))!.der);
    const newer = parseCrl(rekeyed.der);
    expect(newer.issuer).toEqual(older.issuer);
    expect(verifyCrl(newer, cas.get('ca-bbbb0002')!.pem)).toBe(true);
    // And the older CA's next CRL goes on above both.
    expect((await publisher.rebuild(ISSUER, 'ca-aaaa0001')).crl_number).toBeGreaterThan(rekeyed.crl_number);
  });

  it('M1: builds a CA without a valid CRL once for 20 concurrent requests, holding no transaction while it signs', async () => {
    signing.count = 0;
    signing.openTransactions = [];
    signing.delayMs = 100;
    const states = await Promise.all(
      Array.from({ length: 20 }, () => publisher.current(ISSUER, 'ca-cccc0003')),
    );
    expect(signing.count).toBe(1);
    expect(new Set(states.map((s) => s.crl_number.toString())).size).toBe(1);
    expect(signing.openTransactions).toEqual([0]);
    expect(verifyCrl(parseCrl(states[0].der), cas.get('ca-cccc0003')!.pem)).toBe(true);
  });

  it('M1: a failed on-demand build is shared by its waiters, and the next request tries again', async () => {
    signing.count = 0;
    signing.fail = true;
    signing.delayMs = 50;
    const results = await Promise.allSettled(
      Array.from({ length: 5 }, () => publisher.current(ISSUER, 'ca-dddd0004')),
    );
    expect(results.every((r) => r.status === 'rejected')).toBe(true);
    expect(signing.count).toBe(1);
    signing.fail = false;
    const state = await publisher.current(ISSUER, 'ca-dddd0004');
    expect(signing.count).toBe(2);
    expect(verifyCrl(parseCrl(state.der), cas.get('ca-dddd0004')!.pem)).toBe(true);
  });

  it('M3: rebuilds on the next sweep a CRL whose rebuild after a hold release failed', async () => {
    const caId = 'ca-aaaa0001';
    const serial = '4abc';
    await observer.query(
      `INSERT INTO revocation.revocations (issuer_id, serial_hex, reason, revoked_at, event_id, ca_id)
       VALUES ($1, $2, 'certificateHold', now() - interval '1 hour', $3, $4)`,
      [ISSUER, serial, randomUUID(), caId],
    );
    const held = await publisher.rebuild(ISSUER, caId);
    expect(parseCrl(held.der).entries.map((e) => e.serialNumber)).toEqual([serial]);

    // The release commits (as the consumer's releaseHold does); its rebuild fails, or the process
    // stops before it runs: nothing in memory remembers it.
    await observer.query('DELETE FROM revocation.revocations WHERE issuer_id = $1 AND serial_hex = $2', [
      ISSUER,
      serial,
    ]);
    signing.fail = true;
    await expect(publisher.rebuild(ISSUER, caId)).rejects.toThrow(/did not answer/);
    signing.fail = false;

    await publisher.sweep();
    await eventually(
      async () => parseCrl((await stored(caId))!.der).entries.length === 0,
      'a CRL without the released serial',
      3000,
    );
    expect(BigInt((await stored(caId))!.crl_number)).toBeGreaterThan(held.crl_number);
  });

  it('M3: a sweep after a rebuild finds nothing due', async () => {
    const caId = 'ca-bbbb0002';
    await observer.query(
      `INSERT INTO revocation.revocations (issuer_id, serial_hex, reason, revoked_at, event_id, ca_id)
       VALUES ($1, '4def', 'keyCompromise', now(), $2, $3)`,
      [ISSUER, randomUUID(), caId],
    );
    await publisher.rebuild(ISSUER, caId);
    const due = await new CrlRepository(dataSource).due(new Date(), 12 * 3600_000);
    expect(due).toEqual([]);
  });

  it('L5: a replica with its own publication directory writes the CRLs other replicas built', async () => {
    const dirs = [0, 1].map(() => mkdtempSync(join(tmpdir(), 'certlane-crl-files-')));
    try {
      const [a, b] = dirs.map((dir) => replica(dir));
      const built = await a.rebuild(ISSUER, 'ca-cccc0003');
      const file = (dir: string) => join(dir, 'crl', ISSUER, 'ca-cccc0003.crl');
      expect(readFileSync(file(dirs[0])).equals(built.der)).toBe(true);
      expect(existsSync(file(dirs[1]))).toBe(false);
      await b.sweep();
      await eventually(() => existsSync(file(dirs[1])), "replica b's copy", 3000);
      expect(readFileSync(file(dirs[1])).equals(built.der)).toBe(true);
      const newer = await a.rebuild(ISSUER, 'ca-cccc0003');
      await b.sweep();
      await eventually(() => readFileSync(file(dirs[1])).equals(newer.der), "replica b's newer copy", 3000);
    } finally {
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    }
  });

  it("M3: every change to a CA's revocations makes its CRL due, in the changing transaction", async () => {
    const caId = 'ca-dddd0004';
    const repository = new CrlRepository(dataSource);
    const revocations = new RevocationRepository(dataSource);
    const due = async () =>
      (await repository.due(new Date(), 12 * 3600_000)).some(
        (d) => d.issuer_id === ISSUER && d.ca_id === caId,
      );
    const event = (serial: string, reason: 'certificateHold' | 'keyCompromise') => ({
      issuer_id: ISSUER,
      serial_hex: serial,
      reason,
      revoked_at: new Date().toISOString(),
      certificate_id: undefined,
    });
    await publisher.rebuild(ISSUER, caId);
    expect(await due()).toBe(false);

    // Stored before its CA is known: on no CRL yet, so nothing is due until the sweep resolves it.
    await revocations.insert(
      dataSource.manager,
      randomUUID(),
      event('5a01', 'certificateHold') as never,
      null,
    );
    expect(await due()).toBe(false);
    await revocations.resolveCa(ISSUER, '5a01', caId);
    expect(await due()).toBe(true);
    await publisher.rebuild(ISSUER, caId);
    expect(await due()).toBe(false);

    // A final reason replaces the hold.
    await revocations.insert(dataSource.manager, randomUUID(), event('5a01', 'keyCompromise') as never, caId);
    expect(await due()).toBe(true);
    await publisher.rebuild(ISSUER, caId);
    expect(await due()).toBe(false);

    // A change rolled back leaves nothing due.
    await dataSource
      .transaction(async (manager) => {
        await revocations.insert(manager, randomUUID(), event('5a02', 'keyCompromise') as never, caId);
        throw new Error('rolled back');
      })
      .catch(() => undefined);
    expect(await due()).toBe(false);
  });
});

/** Migration 0004 on a database from before it: every CA with a CRL or revocations is due once. */
describe('revocation migration 0004: CRL revisions', () => {
  let database: TestDatabase;
  let db: Client;
  let before: string;

  beforeAll(async () => {
    database = await createTestDatabase('crlrevisions');
    before = migrationsBefore('revocation', '0004');
    const migrate = (directory: string) =>
      runMigrations({ databaseUrl: database.url, schema: 'revocation', directory, demoSeed: false });
    await migrate(before);
    db = new Client({ connectionString: database.url, options: '-c search_path=revocation' });
    await db.connect();
    await db.query(
      `INSERT INTO crl_state (issuer_id, ca_id, crl_number, this_update, next_update, der)
       VALUES ('iss-local', 'ca-old00001', 4, now(), now() + interval '1 day', '\\x30'),
              ('iss-local', '', 2, now() - interval '2 days', now() - interval '1 day', '\\x30')`,
    );
    await db.query(
      `INSERT INTO revocations (issuer_id, serial_hex, reason, revoked_at, event_id, ca_id)
       VALUES ('iss-local', '4a', 'keyCompromise', now(), $1, 'ca-new00002'),
              ('iss-local', '4b', 'keyCompromise', now(), $2, NULL),
              ('iss-local', '4c', 'keyCompromise', now(), $3, '')`,
      [randomUUID(), randomUUID(), randomUUID()],
    );
    await migrate(serviceMigrationsDir('revocation'));
  }, 60_000);

  afterAll(async () => {
    await db?.end();
    await database?.drop();
    if (before) rmSync(before, { recursive: true, force: true });
  });

  it('marks the CAs with a CRL or revocations changed, and no others', async () => {
    const { rows } = await db.query('SELECT issuer_id, ca_id, revision::int FROM crl_changes ORDER BY ca_id');
    expect(rows).toEqual([
      { issuer_id: 'iss-local', ca_id: 'ca-new00002', revision: 1 },
      { issuer_id: 'iss-local', ca_id: 'ca-old00001', revision: 1 },
    ]);
    const built = await db.query('SELECT ca_id, built_revision::int FROM crl_state ORDER BY ca_id');
    expect(built.rows).toEqual([
      { ca_id: '', built_revision: 0 },
      { ca_id: 'ca-old00001', built_revision: 0 },
    ]);
  });
});
