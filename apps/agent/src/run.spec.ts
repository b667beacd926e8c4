import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runAgent } from './run';

/** The agent process as started by systemd: its settings in the environment, no flags. */
describe('runAgent, the process', () => {
  let dir: string;
  const saved = { ...process.env };
  let stdout: jest.SpyInstance;
  let stderr: jest.SpyInstance;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'certlane-agent-run-'));
    Object.assign(process.env, {
      // Nothing listens there: every call fails at once and the loop backs off.
      SERVICE_SERVER_URL: 'https://127.0.0.1:1',
      SERVICE_AGENT_ID: 'web-01',
      SERVICE_AGENT_API_KEY: 'cla_secret-agent-key',
      SERVICE_AGENT_STATE_DIR: join(dir, 'state'),
    });
    stdout = jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
    stderr = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
  });
  afterEach(() => {
    for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
    Object.assign(process.env, saved);
    stdout.mockRestore();
    stderr.mockRestore();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The running agent's exit, in an object (an async function would wait for the promise). */
  const started = async () => {
    const exit = runAgent({ argv: [] });
    await new Promise((resolve) => setTimeout(resolve, 100));
    return { exit };
  };

  it('keeps the API key out of the environment the reload and validate commands inherit', async () => {
    const { exit } = await started();
    expect(process.env.SERVICE_AGENT_API_KEY).toBeUndefined();
    process.emit('SIGTERM');
    expect(await exit).toBe(0);
  });

  it('is not ended by SIGHUP (Node ends a process without a listener), only by SIGTERM', async () => {
    const before = process.listenerCount('SIGHUP');
    const { exit } = await started();
    expect(process.listenerCount('SIGHUP')).toBe(before + 1);
    process.emit('SIGHUP');
    const outcome = await Promise.race([exit, new Promise((resolve) => setTimeout(resolve, 100, 'running'))]);
    expect(outcome).toBe('running');
    process.emit('SIGTERM');
    expect(await exit).toBe(0);
    expect(process.listenerCount('SIGHUP')).toBe(before);
  });

  it('makes an existing state directory private (0700)', async () => {
    mkdirSync(join(dir, 'state'), { mode: 0o755 });
    chmodSync(join(dir, 'state'), 0o755);
    const { exit } = await started();
    expect(statSync(join(dir, 'state')).mode & 0o777).toBe(0o700);
    process.emit('SIGTERM');
    expect(await exit).toBe(0);
  });

  const asRoot = process.getuid?.() === 0 ? it : it.skip;
  asRoot(
    "refuses a state directory of another account, which could swap the agent's key directories",
    async () => {
      mkdirSync(join(dir, 'state'), { mode: 0o700 });
      chownSync(join(dir, 'state'), 4242, 4242);
      const exit = runAgent({ argv: [] });
      const code = await Promise.race([exit, new Promise((resolve) => setTimeout(resolve, 500, 'running'))]);
      if (code === 'running') {
        process.emit('SIGTERM');
        await exit;
      }
      expect(code).toBe(78);
      expect(stderr.mock.calls.join('')).toContain('belongs to uid 4242');
    },
  );
});
