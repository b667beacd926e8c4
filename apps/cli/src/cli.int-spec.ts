import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { REVOCATION_REASONS } from '@certlane/contracts';
import { eventually, signSubCaWithExternalRoot, startTestSystem, TestSystem } from '@certlane/testing';

const MAIN = join(__dirname, '../../../dist/apps/cli/src/main.js');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

describe('the certlane CLI against a running system', () => {
  let system: TestSystem;
  let dir: string;
  let env: NodeJS.ProcessEnv;

  const cli = (args: string[], extraEnv: NodeJS.ProcessEnv = {}, input?: string): Promise<Run> =>
    new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [MAIN, ...args], { env: { ...env, ...extraEnv } });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout, stderr }));
      child.stdin.end(input ?? '');
    });
  const json = async (args: string[]) => {
    const run = await cli([...args, '-o', 'json']);
    if (run.code !== 0) throw new Error(`certlane ${args.join(' ')}: ${run.code} ${run.stderr}`);
    return JSON.parse(run.stdout) as Record<string, unknown>;
  };

  /** A CA under the local root, made through the CLI. */
  const childCa = (commonName: string, ...flags: string[]) =>
    json([
      'intermediate-cas',
      'create',
      '--issuer-id',
      'iss-local',
      '--parent-id',
      'ca-local-root',
      '--common-name',
      commonName,
      ...flags,
    ]);

  beforeAll(async () => {
    system = await startTestSystem('cli', ['auth', 'issuance', 'revocation', 'api-gateway'], {
      SERVICE_KEYGEN_MODE: 'server',
    });
    dir = mkdtempSync(join(tmpdir(), 'certlane-cli-'));
    writeFileSync(join(dir, 'ca.pem'), system.ca);
    writeFileSync(join(dir, 'admin.key'), system.env.SERVICE_AUTH_SECRET!, { mode: 0o600 });
    env = {
      PATH: process.env.PATH,
      HOME: dir,
      XDG_CONFIG_HOME: join(dir, 'config'),
      SERVICE_SERVER_URL: system.services['api-gateway'].url,
      SERVICE_API_KEY_FILE: join(dir, 'admin.key'),
      SERVICE_SERVER_CA_BUNDLE_PATH: join(dir, 'ca.pem'),
    };
  }, 90_000);

  afterAll(async () => {
    await system?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('creates, reads, lists, updates and deletes through generated commands and flags', async () => {
    const created = await json(['renewal-policies', 'create', '--name', 'cli-one', '--max-retries', '2']);
    expect(created).toMatchObject({ id: expect.any(String), name: 'cli-one', max_retries: 2 });
    const id = String(created.id);
    expect(await json(['renewal-policies', 'get', id])).toMatchObject({ id, name: 'cli-one' });
    const updated = await json(['renewal-policies', 'update', id, '--name', 'cli-one', '--max-retries', '4']);
    expect(updated.max_retries).toBe(4);
    const table = await cli(['renewal-policies', 'list']);
    expect(table.code).toBe(0);
    expect(table.stdout.split('\n')[0]).toMatch(/^ID\s+NAME/);
    expect(table.stdout).toContain('cli-one');
    expect(parseYaml((await cli(['renewal-policies', 'get', id, '-o', 'yaml'])).stdout)).toMatchObject({
      id,
    });
    expect((await cli(['renewal-policies', 'delete', id])).code).toBe(0);
    expect((await cli(['renewal-policies', 'get', id])).code).toBe(4);
  });

  it('revokes a child CA with its reason (ADR 0075), and a root is refused with the API error', async () => {
    const child = await childCa('CLI child CA');
    const revoked = await json([
      'intermediate-cas',
      'revoke',
      String(child.id),
      '--reason',
      'cessationOfOperation',
    ]);
    expect(revoked).toMatchObject({
      id: child.id,
      status: 'revoked',
      revocation_reason: 'cessationOfOperation',
    });
    const root = await cli(['intermediate-cas', 'revoke', 'ca-local-root']);
    expect(root.code).not.toBe(0);
    expect(root.stderr).toMatch(/ca_not_active/);
  });

  it('lists and renews the certificates under a CA (ADR 0076)', async () => {
    const under = await childCa('CLI under CA', '--issuing');
    await json(['certs', 'create', '--id', 'cli-under', '--common-name', 'under.cli.example']);
    const listed = await json(['certs', 'list', '--ca-id', String(under.id)]);
    expect(listed.total).toBe(1);
    expect((listed.data as { id: string }[]).map((certificate) => certificate.id)).toEqual(['cli-under']);
    const renewed = await json(['bulk', 'renew', '--ca-id', String(under.id)]);
    expect(renewed).toMatchObject({ total_matched: 1, total_enqueued: 1, total_failed: 0 });
    expect((await json(['certs', 'list', '--ca-id', 'ca-nope-0000'])).total).toBe(0);
  });

  it('installs an external sub-CA from PEM files named @FILE, issuing from then on (ADR 0022 amendment)', async () => {
    const issuer = await json(['issuers', 'create', '--name', 'CLI external', '--type', 'local_ca']);
    const pending = await json([
      'intermediate-cas',
      'create',
      '--issuer-id',
      String(issuer.id),
      '--common-name',
      'CLI Sub CA',
      '--external',
    ]);
    const signed = signSubCaWithExternalRoot(String(pending.csr_pem));
    writeFileSync(join(dir, 'sub.crt'), signed.certificatePem);
    writeFileSync(join(dir, 'root.crt'), signed.rootPem);
    const installed = await json([
      'intermediate-cas',
      'install-certificate',
      String(pending.id),
      '--certificate-pem',
      `@${join(dir, 'sub.crt')}`,
      '--chain-pem',
      `@${join(dir, 'root.crt')}`,
      '--issuing',
    ]);
    expect(installed).toMatchObject({ status: 'active', issuing: true, external_chain_pem: signed.rootPem });
    const missing = await cli([
      'intermediate-cas',
      'install-certificate',
      'ca-x',
      '--certificate-pem',
      '@/nonexistent.pem',
    ]);
    expect([missing.code, missing.stderr]).toEqual([
      2,
      expect.stringContaining('--certificate-pem @/nonexistent.pem'),
    ]);
  });

  it('reads a body from a YAML file, flags overriding its fields', async () => {
    writeFileSync(join(dir, 'policy.yaml'), 'name: from-file\nmax_retries: 1\nrenewal_window_days: 20\n');
    const created = await json([
      'renewal-policies',
      'create',
      '--body-file',
      join(dir, 'policy.yaml'),
      '--max-retries',
      '5',
    ]);
    expect(created).toMatchObject({ name: 'from-file', max_retries: 5, renewal_window_days: 20 });
  });

  it('follows every page with --all, as one JSON envelope', async () => {
    for (let i = 0; i < 5; i++)
      await json(['renewal-policies', 'create', '--name', `paged-${i}`, '--max-retries', '1']);
    const one = await json(['renewal-policies', 'list', '--per-page', '2']);
    expect((one.data as unknown[]).length).toBe(2);
    const all = await json(['renewal-policies', 'list', '--per-page', '2', '--all']);
    expect(all.total).toBe(one.total);
    const names = (all.data as { name: string }[]).map((policy) => policy.name);
    expect(names.length).toBe(one.total);
    expect(new Set(names).size).toBe(names.length);
    for (let i = 0; i < 5; i++) expect(names).toContain(`paged-${i}`);
  });

  it('prints the error code and message of the API and exits with the documented code', async () => {
    const missing = await cli(['certs', 'get', 'no-such-cert']);
    expect(missing.code).toBe(4);
    expect(missing.stderr).toMatch(/^error: certificate_not_found: /);
    writeFileSync(join(dir, 'wrong.key'), 'not-a-key');
    const unauthenticated = await cli(['certs', 'list'], { SERVICE_API_KEY_FILE: join(dir, 'wrong.key') });
    expect(unauthenticated.code).toBe(3);
    const invalid = await cli(['renewal-policies', 'create', '--name', 'x', '--max-retries', '99']);
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toMatch(/^error: \w+: /);
    const duplicate = await cli(['renewal-policies', 'create', '--name', 'paged-0', '--max-retries', '1']);
    expect(duplicate.code).toBe(5);
  });

  it('refuses certs revoke without --reason before sending, with the menu of the ten reasons (spec 7)', async () => {
    const cert = await json(['certs', 'create', '--id', 'cli-revoke', '--common-name', 'rev.example.com']);
    expect(cert.status).toBe('Active');
    const refused = await cli(['certs', 'revoke', 'cli-revoke']);
    expect(refused.code).toBe(2);
    for (const reason of REVOCATION_REASONS) expect(refused.stderr).toContain(reason);
    expect((await json(['certs', 'get', 'cli-revoke'])).status).toBe('Active');
    const revoked = await cli(['certs', 'revoke', 'cli-revoke', '--reason', 'superseded']);
    expect(revoked.code).toBe(0);
    expect((await json(['certs', 'get', 'cli-revoke'])).status).toBe('Revoked');
    const badReason = await cli(['certs', 'revoke', 'cli-revoke', '--reason', 'bored']);
    expect(badReason.code).toBe(2);
  });

  it('refuses agents retire --force without --reason before sending (spec 7)', async () => {
    const refused = await cli(['agents', 'retire', 'any-agent', '--force']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--force needs --reason');
  });

  it('renews with --force and waits for the job with --wait', async () => {
    await json(['certs', 'create', '--id', 'cli-renew', '--common-name', 'renew.example.com']);
    const renewed = await cli(['certs', 'renew', 'cli-renew', '--force', '--wait', '-o', 'json']);
    expect(renewed.code).toBe(0);
    // One JSON document for a script: the reply and the job it waited for.
    const { reply, job } = JSON.parse(renewed.stdout) as { reply: { job_id: string }; job: unknown };
    expect(reply.job_id).toEqual(expect.any(String));
    expect(job).toMatchObject({ id: reply.job_id, status: 'Completed' });
    expect((await json(['certs', 'versions', 'cli-renew'])).total).toBe(2);
  });

  it('exits non-zero when a waited-for job does not complete: 9 while held at --timeout, 8 once Cancelled', async () => {
    await json(['profiles', 'create', '--id', 'cli-gated', '--name', 'CLI gated', '--requires-approval']);
    await json([
      'certs',
      'create',
      '--id',
      'cli-gated',
      '--common-name',
      'gated.cli.example',
      '--profile-id',
      'cli-gated',
    ]);
    const jobs = await json(['jobs', 'list', '--certificate-id', 'cli-gated']);
    const jobId = String((jobs.data as { id: string }[])[0].id);
    const held = await cli(['jobs', 'get', jobId, '--wait', '--timeout', '0']);
    expect([held.code, held.stderr]).toEqual([
      9,
      expect.stringContaining(`job ${jobId} is still AwaitingApproval`),
    ]);
    expect((await cli(['jobs', 'cancel', jobId])).code).toBe(0);
    const cancelled = await cli(['jobs', 'get', jobId, '--wait']);
    expect([cancelled.code, cancelled.stderr]).toEqual([
      8,
      expect.stringContaining(`job ${jobId} ended Cancelled`),
    ]);
  });

  it('exits 8 when a bulk answer counts failed items, after printing it', async () => {
    const run = await cli([
      'bulk',
      'revoke',
      '--certificate-ids',
      'cli-ghost',
      '--reason',
      'superseded',
      '-o',
      'json',
    ]);
    expect(run.code).toBe(8);
    expect(JSON.parse(run.stdout)).toMatchObject({ total_failed: 1, total_revoked: 0 });
  });

  it('prints what the sent batches did and the ids not sent when a later batch of a bulk call fails', async () => {
    const ghosts = Array.from({ length: 500 }, (_, i) => `cli-batch-ghost-${i}`);
    const tooLong = 'x'.repeat(129);
    writeFileSync(join(dir, 'ids.txt'), [...ghosts, tooLong].join('\n'));
    const run = await cli([
      'bulk',
      'revoke',
      '--ids-file',
      join(dir, 'ids.txt'),
      '--reason',
      'superseded',
      '-o',
      'json',
    ]);
    expect(run.code).toBe(2);
    expect(JSON.parse(run.stdout)).toMatchObject({ total_failed: 500, ids_not_sent: [tooLong] });
    expect(run.stderr).toContain('500 of 501 ids were sent');
  });

  it('exports PEM and PKCS#12 to files only its owner can read', async () => {
    await json(['certs', 'create', '--id', 'cli-export', '--common-name', 'export.example.com']);
    const pem = join(dir, 'out.pem');
    expect((await cli(['certs', 'export', 'cli-export', '--pem', '-f', pem])).code).toBe(0);
    expect(readFileSync(pem, 'utf8')).toContain('BEGIN CERTIFICATE');
    expect(statSync(pem).mode & 0o777).toBe(0o600);
    const again = await cli(['certs', 'export', 'cli-export', '--pem', '-f', pem]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('--overwrite');
    writeFileSync(join(dir, 'p12.pass'), 'secret-pass\n');
    const p12 = join(dir, 'out.p12');
    const exported = await cli([
      'certs',
      'export',
      'cli-export',
      '--p12',
      '-f',
      p12,
      '--password-file',
      join(dir, 'p12.pass'),
    ]);
    expect(exported.code).toBe(0);
    expect(statSync(p12).mode & 0o777).toBe(0o600);
    const parsed = spawnSync('openssl', ['pkcs12', '-in', p12, '-passin', 'pass:secret-pass', '-nokeys'], {
      encoding: 'utf8',
    });
    expect(parsed.stdout).toContain('BEGIN CERTIFICATE');
    expect((await cli(['certs', 'export', 'cli-export'])).code).toBe(2);
  });

  it('streams the audit export to a file', async () => {
    const file = join(dir, 'audit.ndjson');
    const run = await cli(['audit', 'export', '-f', file]);
    expect(run.code).toBe(0);
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    expect(lines.length).toBeGreaterThan(3);
    expect(JSON.parse(lines[0])).toHaveProperty('action');
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    const since = await cli(['audit', 'export', '--from', yesterday, '-f', join(dir, 'since.ndjson')]);
    expect([since.code, since.stderr]).toEqual([0, expect.not.stringContaining('error')]);
    expect(readFileSync(join(dir, 'since.ndjson'), 'utf8').trim().split('\n').length).toBeGreaterThan(3);
  });

  it('connects through named contexts, flags and environment above them', async () => {
    const bare = { SERVICE_SERVER_URL: '', SERVICE_API_KEY_FILE: '', SERVICE_SERVER_CA_BUNDLE_PATH: '' };
    expect((await cli(['version'], bare)).code).toBe(2);
    const noServer = await cli(['certs', 'revoke', 'cli-revoke'], bare);
    expect([noServer.code, noServer.stderr]).toEqual([2, expect.stringContaining('keyCompromise')]);
    const set = await cli(
      [
        'config',
        'set-context',
        'test',
        '--server',
        env.SERVICE_SERVER_URL!,
        '--api-key-file',
        join(dir, 'admin.key'),
        '--ca-bundle',
        join(dir, 'ca.pem'),
      ],
      bare,
    );
    expect(set.code).toBe(0);
    await cli(['config', 'set-context', 'other', '--server', 'https://127.0.0.1:1'], bare);
    expect((await cli(['config', 'use-context', 'test'], bare)).code).toBe(0);
    expect((await cli(['config', 'current-context'], bare)).stdout).toBe('test\n');
    const listed = await cli(['certs', 'list', '-o', 'json'], bare);
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout)).toHaveProperty('total');
    expect((await cli(['certs', 'list', '--context', 'other'], bare)).code).toBe(7);
    const configFile = join(dir, 'config', 'certlane', 'config.yaml');
    expect(statSync(configFile).mode & 0o777).toBe(0o600);
    expect(readFileSync(configFile, 'utf8')).not.toContain(system.env.SERVICE_AUTH_SECRET!);
  });

  it('refuses an http:// server URL at startup (spec 7)', async () => {
    const run = await cli(['version'], { SERVICE_SERVER_URL: 'http://127.0.0.1:8443' });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('http://');
  });

  it('exits 7 when the server certificate does not verify, saying to trust its CA; nothing on stdout', async () => {
    // No context either (an earlier test made one that names the CA bundle).
    const run = await cli(['version', '--config', join(dir, 'none.yaml')], {
      SERVICE_SERVER_CA_BUNDLE_PATH: '',
    });
    expect(run.code).toBe(7);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('--ca-bundle');
    expect(run.stderr).not.toContain('warning');
  });

  it('sends null with --null FIELD: a profile update clears its validity_days (ADR 0049)', async () => {
    const id = `cli-null-${Date.now()}`;
    await json(['profiles', 'create', '--id', id, '--name', 'cli null', '--validity-days', '90']);
    const cleared = await json(['profiles', 'update', id, '--null', 'validity-days']);
    expect(cleared.validity_days).toBeNull();
  });

  it('reads the key from stdin when asked, never from argv', async () => {
    const run = await cli(
      ['auth', 'me', '-o', 'json', '--api-key-stdin'],
      { SERVICE_API_KEY_FILE: '' },
      `${system.env.SERVICE_AUTH_SECRET}\n`,
    );
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toHaveProperty('effective_permissions');
    expect((await cli(['certs', 'list', '--api-key', 'x'])).code).toBe(2);
  });

  it('completes commands, flags, choices and live ids in real bash', () => {
    const bin = join(dir, 'bin');
    spawnSync('mkdir', ['-p', bin]);
    writeFileSync(join(bin, 'certlane'), `#!/bin/sh\nexec "${process.execPath}" "${MAIN}" "$@"\n`);
    chmodSync(join(bin, 'certlane'), 0o755);
    const complete = (words: string[]) => {
      const script = [
        'source <(certlane completion bash)',
        `COMP_WORDS=(certlane ${words.map((word) => `'${word}'`).join(' ')})`,
        `COMP_CWORD=${words.length}`,
        '_certlane',
        'printf "%s\\n" "${COMPREPLY[@]}"',
      ].join('\n');
      const result = spawnSync('bash', ['-c', script], {
        env: { ...env, PATH: `${bin}:${env.PATH}` },
        encoding: 'utf8',
      });
      return result.stdout.split('\n').filter(Boolean);
    };
    expect(complete(['ce'])).toEqual(['certs']);
    expect(complete(['certs', 're'])).toEqual(expect.arrayContaining(['renew', 'revoke']));
    expect(complete(['certs', 'list', '--st'])).toEqual(['--status']);
    expect(complete(['certs', 'list', '--status', 'Re'])).toEqual(
      expect.arrayContaining(['Revoked', 'RenewalInProgress']),
    );
    expect(complete(['certs', 'get', 'cli-'])).toEqual(
      expect.arrayContaining(['cli-revoke', 'cli-renew', 'cli-export']),
    );
    for (const shell of ['zsh', 'fish']) {
      const script = spawnSync(process.execPath, [MAIN, 'completion', shell], { encoding: 'utf8' });
      expect(script.status).toBe(0);
      expect(script.stdout).toContain('certlane __complete');
    }
  });

  describe('in a real terminal (tmux)', () => {
    const socket = `certlane-cli-${process.pid}`;
    const tmux = (...args: string[]) =>
      spawnSync('tmux', ['-f', '/dev/null', '-L', socket, ...args], { encoding: 'utf8' });
    // A session per run (no kill-server between runs: a dying server races the next new-session).
    let session = '';
    let runs = 0;
    const screen = () => tmux('capture-pane', '-p', '-t', session).stdout;
    const runInTerminal = (args: string[]) => {
      const script = join(dir, 'tty.sh');
      const exports = Object.entries(env)
        .map(([name, value]) => `export ${name}='${String(value ?? '')}'`)
        .join('\n');
      writeFileSync(
        script,
        `${exports}\n"${process.execPath}" "${MAIN}" ${args.join(' ')}; echo "EXIT=$?"; sleep 60\n`,
      );
      // The next session starts before the last one is killed: a server left with no session
      // exits, and a new-session racing that exit fails with "server exited unexpectedly".
      const previous = session;
      session = `cli-${++runs}`;
      const started = tmux('new-session', '-d', '-x', '160', '-y', '40', '-s', session, `sh ${script}`);
      if (previous) tmux('kill-session', '-t', previous);
      expect(started.stderr).toBe('');
      expect(started.status).toBe(0);
    };

    afterAll(() => tmux('kill-server'));

    it('asks before deleting, and deletes only on yes', async () => {
      const policy = await json(['renewal-policies', 'create', '--name', 'tty-delete', '--max-retries', '1']);
      runInTerminal(['renewal-policies', 'delete', String(policy.id)]);
      await eventually(() => screen().includes('Go ahead? [y/N]'), 'the confirmation prompt', 15_000);
      tmux('send-keys', '-t', session, 'n', 'Enter');
      await eventually(() => /EXIT=\d/.test(screen()), 'the command to end', 15_000);
      expect(screen()).toContain('error: aborted');
      expect(screen()).toContain('EXIT=2');
      expect((await cli(['renewal-policies', 'get', String(policy.id)])).code).toBe(0);

      // End of input (Ctrl-D) at the prompt is no, not a silent exit 0.
      runInTerminal(['renewal-policies', 'delete', String(policy.id)]);
      await eventually(() => screen().includes('Go ahead? [y/N]'), 'the confirmation prompt', 15_000);
      tmux('send-keys', '-t', session, 'C-d');
      await eventually(() => /EXIT=\d/.test(screen()), 'the command to end', 15_000);
      expect(screen()).toContain('error: aborted');
      expect(screen()).toContain('EXIT=2');
      expect((await cli(['renewal-policies', 'get', String(policy.id)])).code).toBe(0);

      runInTerminal(['renewal-policies', 'delete', String(policy.id)]);
      await eventually(() => screen().includes('Go ahead? [y/N]'), 'the confirmation prompt', 15_000);
      tmux('send-keys', '-t', session, 'y', 'Enter');
      await eventually(() => /EXIT=\d/.test(screen()), 'the command to end', 15_000);
      expect(screen()).toContain('EXIT=0');
      expect((await cli(['renewal-policies', 'get', String(policy.id)])).code).toBe(4);
    });

    it('does not ask when piped: scripts run unattended', async () => {
      const policy = await json([
        'renewal-policies',
        'create',
        '--name',
        'piped-delete',
        '--max-retries',
        '1',
      ]);
      expect((await cli(['renewal-policies', 'delete', String(policy.id)])).code).toBe(0);
    });

    it('prints the reason menu on the terminal when certs revoke lacks --reason', async () => {
      runInTerminal(['certs', 'revoke', 'cli-export']);
      await eventually(() => /EXIT=\d/.test(screen()), 'the command to end', 15_000);
      const text = screen();
      expect(text).toContain('needs --reason');
      for (const reason of REVOCATION_REASONS) expect(text).toContain(reason);
      expect(text).toContain('EXIT=2');
    });

    it('follows pages on a terminal with the output a pipe gets, and writes nothing to stderr when piped', async () => {
      runInTerminal([
        'renewal-policies',
        'list',
        '--all',
        '--per-page',
        '1',
        '-o',
        'json',
        '>',
        join(dir, 'tty.json'),
      ]);
      await eventually(() => /EXIT=\d/.test(screen()), 'the command to end', 15_000);
      expect(screen()).toContain('EXIT=0');
      const piped = await cli(['renewal-policies', 'list', '--all', '--per-page', '1', '-o', 'json']);
      expect(piped.stderr).toBe('');
      expect(JSON.parse(readFileSync(join(dir, 'tty.json'), 'utf8'))).toEqual(JSON.parse(piped.stdout));
    });
  });
});
