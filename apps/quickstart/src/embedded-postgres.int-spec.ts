import { ChildProcess, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { eventually, freePort } from '@certlane/testing';

const DATABASE_MODULE = resolve(__dirname, '../../../dist/apps/quickstart/src/database.js');
/** initdb and the first start, on 2 shared cores. */
const START_TIMEOUT_MS = 120_000;

/**
 * A program that starts the embedded Postgres as the quick start does and, on SIGINT, waits a
 * second (the quick start drains its bus and closes its application then), queries the database,
 * and only then stops it.
 */
const PROGRAM = `
const { startEmbeddedPostgres } = require(${JSON.stringify(DATABASE_MODULE)});
const { Client } = require('pg');
const [dir, port] = process.argv.slice(1);
startEmbeddedPostgres(dir, Number(port), 'quickstart-test-password').then((db) => {
  process.once('SIGINT', async () => {
    await new Promise((done) => setTimeout(done, 1000));
    try {
      const client = new Client({ connectionString: db.url });
      await client.connect();
      const { rows } = await client.query('SELECT 1 AS one');
      await client.end();
      process.stdout.write('still up: ' + rows[0].one + '\\n');
    } catch (error) {
      process.stdout.write('gone: ' + error.message + '\\n');
    }
    await db.stop();
    process.stdout.write('stopped\\n');
    process.exit(0);
  });
  process.stdout.write('started\\n');
}, (error) => {
  process.stdout.write('failed: ' + (error && error.message) + '\\n');
  process.exit(2);
});
`;

/** Processes whose command line names the directory (the postmaster is started with -D <dir>). */
async function processesUsing(dir: string): Promise<string[]> {
  const ps = spawn('ps', ['-eo', 'pid,args'], { stdio: ['ignore', 'pipe', 'ignore'] });
  let out = '';
  ps.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  await new Promise((done) => ps.once('close', done));
  return out.split('\n').filter((line) => line.includes(dir) && !line.includes('node -e'));
}

describe('the embedded Postgres (apps/quickstart/src/database.ts)', () => {
  let parent: string;
  let child: ChildProcess | undefined;

  beforeEach(() => {
    // Traversable by the `postgres` user Postgres runs as when the tests run as root.
    parent = mkdtempSync(join(tmpdir(), 'certlane-embedded-pg-'));
    chmodSync(parent, 0o755);
  });

  afterEach(() => {
    if (child && child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGKILL');
    rmSync(parent, { recursive: true, force: true });
  });

  it(
    'keeps running through a Ctrl-C until the quick start stops it, then stops cleanly',
    async () => {
      const dataDir = join(parent, 'data');
      // Its own process group, as a terminal's foreground job: Ctrl-C is SIGINT to the group.
      child = spawn(process.execPath, ['-e', PROGRAM, dataDir, String(await freePort())], {
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const exited = new Promise<{ code: number | null; signal: string | null }>((done) =>
        child!.once('exit', (code, signal) => done({ code, signal })),
      );
      await eventually(
        () => {
          if (child!.exitCode !== null) throw new Error(`exited ${child!.exitCode}:\n${output}`);
          return output.includes('started');
        },
        'the embedded Postgres to start',
        START_TIMEOUT_MS,
      );

      process.kill(-child.pid!, 'SIGINT');
      const exit = await exited;

      expect({ exit, output }).toEqual({
        exit: { code: 0, signal: null },
        output: 'started\nstill up: 1\nstopped\n',
      });
      // A clean stop: the postmaster has exited and removed its lock file.
      expect(existsSync(join(dataDir, 'postgres', 'postmaster.pid'))).toBe(false);
      expect(await processesUsing(dataDir)).toEqual([]);
    },
    START_TIMEOUT_MS + 30_000,
  );
});
