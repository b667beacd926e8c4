import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { parse as parseYaml } from 'yaml';
import { REVOCATION_REASONS } from '@certlane/contracts';
import { CliIo } from './cli-io';
import { runCli } from './main';

/** The CLI run in-process with no server configured: what it does before connecting anywhere. */
describe('certlane before it connects', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'certlane-cli-unit-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function run(args: string[], env: NodeJS.ProcessEnv = {}) {
    let stdout = '';
    let stderr = '';
    const out = new PassThrough().on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const err = new PassThrough().on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const io: CliIo = {
      stdout: out,
      stderr: err as unknown as CliIo['stderr'],
      stdin: new PassThrough(),
      env: { XDG_CONFIG_HOME: join(dir, 'config'), ...env },
    };
    const code = await runCli(args, io);
    return { code, stdout, stderr };
  }

  it('refuses certs revoke without --reason with the reason menu even with no server (spec 7)', async () => {
    const refused = await run(['certs', 'revoke', 'web-1']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('needs --reason');
    for (const reason of REVOCATION_REASONS) expect(refused.stderr).toContain(reason);
  });

  it('reads a date for the audit export --from (oneOf date, date-time) as text, not JSON', async () => {
    const run1 = await run(['audit', 'export', '--from', '2026-11-01', '-f', join(dir, 'audit.ndjson')]);
    expect(run1.stderr).not.toContain('JSON');
    expect(run1.stderr).toContain('no server');
  });

  it('warns on stderr when TLS verification is switched off (spec 1)', async () => {
    const skipped = await run(['version'], {
      SERVICE_SERVER_URL: 'https://127.0.0.1:1',
      SERVICE_API_KEY: 'k',
      SERVICE_SERVER_TLS_INSECURE_SKIP_VERIFY: 'true',
    });
    expect(skipped.stderr.split('\n')[0]).toMatch(/^warning: SERVICE_SERVER_TLS_INSECURE_SKIP_VERIFY=true/);
    const verified = await run(['version'], {
      SERVICE_SERVER_URL: 'https://127.0.0.1:1',
      SERVICE_API_KEY: 'k',
    });
    expect(verified.stderr).not.toContain('warning');
  });

  it('stores the key file and CA bundle of a context as absolute paths', async () => {
    const config = join(dir, 'contexts.yaml');
    const set = await run([
      'config',
      'set-context',
      'lab',
      '--config',
      config,
      '--server',
      'https://lab:8443',
      '--api-key-file',
      './admin.key',
      '--ca-bundle',
      'tls/ca.pem',
    ]);
    expect(set.code).toBe(0);
    const stored = parseYaml(readFileSync(config, 'utf8')) as { contexts: Record<string, object> };
    expect(stored.contexts.lab).toEqual({
      server: 'https://lab:8443',
      'api-key-file': join(process.cwd(), 'admin.key'),
      'ca-bundle': join(process.cwd(), 'tls/ca.pem'),
    });
  });

  it('refuses a --timeout that is not a duration', async () => {
    const refused = await run(['jobs', 'get', 'job-1', '--wait', '--timeout', 'soon']);
    expect([refused.code, refused.stderr]).toEqual([
      2,
      expect.stringContaining('--timeout takes a duration'),
    ]);
  });

  it.each([
    ['--api-key-file', 'API key file'],
    ['--ca-bundle', 'CA bundle'],
  ])('exits 2 naming the file when %s cannot be read, not 1 (docs/cli.md)', async (flag, what) => {
    const missing = join(dir, 'missing.pem');
    const run1 = await run(['version', '--server', 'https://127.0.0.1:1', flag, missing], {
      SERVICE_API_KEY: 'k',
    });
    expect([run1.code, run1.stderr]).toEqual([
      2,
      `error: cannot read the ${what} ${missing}: no such file\n`,
    ]);
  });

  it('exits 2 when a body file or ids file cannot be read', async () => {
    const missing = join(dir, 'missing.yaml');
    const body = await run(['renewal-policies', 'create', '--body-file', missing]);
    expect([body.code, body.stderr]).toEqual([2, expect.stringContaining('cannot read the body file')]);
    const ids = await run(['bulk', 'renew', '--ids-file', missing]);
    expect([ids.code, ids.stderr]).toEqual([2, expect.stringContaining('cannot read the ids file')]);
  });

  it('refuses --api-key-stdin with a body or ids file read from standard input too', async () => {
    const body = await run(['renewal-policies', 'create', '--api-key-stdin', '--body-file', '-']);
    expect([body.code, body.stderr]).toEqual([2, expect.stringContaining('both read standard input')]);
    const ids = await run(['bulk', 'renew', '--api-key-stdin', '--ids-file', '-']);
    expect([ids.code, ids.stderr]).toEqual([2, expect.stringContaining('--ids-file - both read')]);
  });

  it('offers --null for the fields that take null, and refuses one that does not', async () => {
    const help = await run(['health-checks', 'update', '--help']);
    expect(help.stdout).toMatch(/--null <field>/);
    const refused = await run(['health-checks', 'update', 'hc-1', '--null', 'colour']);
    expect([refused.code, refused.stderr]).toEqual([
      2,
      expect.stringContaining('--null colour: takes one of'),
    ]);
  });

  it('offers --ids-file for the id list the body has (ids for discovered certificates)', async () => {
    const help = await run(['discovered-certificates', 'bulk-claim', '--help']);
    expect(help.stdout).toMatch(/--ids-file <path>\s+the ids to send/);
    expect((await run(['bulk', 'revoke', '--help'])).stdout).toMatch(
      /--ids-file <path>\s+the certificate_ids/,
    );
  });
});
