import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NodeDeploymentHost } from '../engine/node-deployment-host';
import type { DeploymentMaterial } from '../target-connector';
import { createThrowawayUser, startTestSshd, TestSshd } from '../testing/sshd';
import { createTestCa, TestCa } from '../testing/test-certificates';
import { ServerSite, writeNginxSite } from '../testing/server-sites';
import { freePort, opensslServedFingerprint, ServerProcess, waitUntil } from '../testing/servers';
import { sshConnector } from './ssh.connector';

// A real sshd (openssh-server) and a real nginx on loopback high ports, both with their config in
// temporary directories. The connector uploads over SFTP and reloads nginx through the SSH exec
// channel; verification connects to nginx from here.
describe('ssh connector against a real sshd and nginx', () => {
  let ca: TestCa;
  let sshd: TestSshd;
  let dir: string;
  let port: number;
  let site: ServerSite;
  let nginx: ServerProcess | undefined;
  let config: Record<string, unknown>;
  const host = new NodeDeploymentHost();
  const logged: string[] = [];
  host.log = (message, fields) => void logged.push(JSON.stringify({ message, fields }));
  const connector = sshConnector({ connectTimeoutMs: 10_000 });
  const deploy = (material: DeploymentMaterial, overrides: Record<string, unknown> = {}) =>
    connector.deploy({ ...config, ...overrides }, material, host, {
      endpoint: `127.0.0.1:${port}`,
      serverName: 'localhost',
      verifyDeadlineMs: 5_000,
    });
  const certsListing = () => readdirSync(join(dir, 'certs')).sort();

  beforeAll(async () => {
    ca = createTestCa();
    sshd = await startTestSshd({ passwordAuthentication: true });
    dir = mkdtempSync(join(tmpdir(), 'certlane-ssh-nginx-'));
    port = await freePort();
    site = writeNginxSite(dir, port, { binary: '/usr/sbin/nginx' });
    config = {
      host: '127.0.0.1',
      port: sshd.port,
      username: 'root',
      auth_method: 'key',
      private_key: sshd.clientPrivateKey,
      host_key_fingerprint: sshd.hostKeyFingerprint,
      cert_path: site.certPath,
      key_path: site.keyPath,
      validate_command: site.validateCommand,
      reload_command: site.reloadCommand,
    };
  });

  afterAll(async () => {
    await nginx?.stop();
    await sshd?.stop();
    ca?.cleanup();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('key auth: uploads the files, and nginx reloaded over SSH serves the renewed certificate', async () => {
    const initial = ca.issue();
    const first = await connector.deploy({ ...config, reload_command: undefined }, initial, host);
    expect(first.error).toBeUndefined();
    expect(first).toMatchObject({ ok: true, rolledBack: false });
    expect(statSync(`${dir}/certs/server.key`).mode & 0o777).toBe(0o600);
    expect(statSync(`${dir}/certs/fullchain.pem`).mode & 0o777).toBe(0o644);
    expect(readFileSync(`${dir}/certs/server.key`, 'utf8')).toBe(`${initial.privateKeyPem.trim()}\n`);

    nginx = site.start();
    await waitUntil(
      () => opensslServedFingerprint(port) === initial.fingerprintSha256,
      'nginx serving the initial certificate',
    );

    const renewed = ca.issue();
    const result = await deploy(renewed);
    expect(result.error).toBeUndefined();
    expect(result).toMatchObject({ ok: true, servedFingerprintSha256: renewed.fingerprintSha256 });
    expect(result.steps.map((s) => [s.step, s.ok])).toEqual([
      ['write', true],
      ['swap', true],
      ['validate', true],
      ['reload', true],
      ['verify', true],
    ]);
    // An old nginx worker may still take a connection or two while it drains after the reload.
    await waitUntil(
      () => opensslServedFingerprint(port) === renewed.fingerprintSha256,
      'nginx serving the renewed certificate to openssl',
    );
    expect(readFileSync(`${dir}/certs/fullchain.pem`, 'utf8')).toBe(
      `${renewed.certificatePem.trim()}\n${renewed.chainPem.trim()}\n`,
    );
    expect(readFileSync(`${dir}/certs/fullchain.pem.certlane-prev`, 'utf8')).toContain(
      initial.certificatePem.trim(),
    );
    expect(statSync(`${dir}/certs/server.key.certlane-prev`).mode & 0o777).toBe(0o600);
    // No temporary file left, and the secrets appear in no result and no log line.
    expect(certsListing()).toEqual([
      'fullchain.pem',
      'fullchain.pem.certlane-prev',
      'server.key',
      'server.key.certlane-prev',
    ]);
    const everything = JSON.stringify([first, result, logged]);
    expect(everything).not.toContain(sshd.clientPrivateKey.split('\n')[1]);
    expect(everything).not.toContain(renewed.privateKeyPem.split('\n')[1]);
  });

  it('over SFTP, the temporary files a killed deployment left (an old key) are removed by the next one; a young one stays', async () => {
    const stale = join(dir, 'certs', '.server.key.certlane-new-0123456789ab');
    const young = join(dir, 'certs', '.fullchain.pem.certlane-new-abcdefabcdef');
    writeFileSync(stale, 'a key that was never renamed into place', { mode: 0o600 });
    const hourAgo = new Date(Date.now() - 3_600_000);
    utimesSync(stale, hourAgo, hourAgo);
    writeFileSync(young, 'a deployment running now may own this');
    try {
      const result = await deploy(ca.issue());
      expect(result.error).toBeUndefined();
      expect(result.ok).toBe(true);
      expect(existsSync(stale)).toBe(false);
      expect(existsSync(young)).toBe(true);
      expect(logged.join('\n')).toContain(stale);
    } finally {
      rmSync(young, { force: true });
    }
  });

  it('a host key that is not the pinned one is refused before anything is uploaded', async () => {
    const before = certsListing();
    const logins = () => (sshd.output().match(/Accepted publickey/g) ?? []).length;
    const loginsBefore = logins();
    const certBefore = readFileSync(`${dir}/certs/fullchain.pem`);
    const wrongPin = `SHA256:${'A'.repeat(43)}`;
    const result = await deploy(ca.issue(), { host_key_fingerprint: wrongPin });
    expect(result).toMatchObject({ ok: false, rolledBack: false });
    expect(result.error).toContain(
      `host key refused: host key mismatch: the server presents ${sshd.hostKeyFingerprint}, the target pins ${wrongPin}`,
    );
    expect(result.steps).toEqual([{ step: 'write', ok: false, detail: expect.stringContaining('mismatch') }]);

    const unpinned = await deploy(ca.issue(), { host_key_fingerprint: undefined });
    expect(unpinned.ok).toBe(false);
    expect(unpinned.error).toMatch(/host_key_fingerprint/);

    expect(certsListing()).toEqual(before);
    expect(readFileSync(`${dir}/certs/fullchain.pem`)).toEqual(certBefore);
    // sshd saw no login: the client hung up during the key exchange.
    expect(logins()).toBe(loginsBefore);
  });

  it('a failing validate command restores the previous files byte for byte; the old leaf stays served', async () => {
    const servedBefore = opensslServedFingerprint(port);
    const certBefore = readFileSync(`${dir}/certs/fullchain.pem`);
    const keyBefore = readFileSync(`${dir}/certs/server.key`);
    const result = await deploy(ca.issue(), { validate_command: `/usr/bin/test -e ${dir}/no-such-file` });
    expect(result).toMatchObject({ ok: false, rolledBack: true });
    expect(result.error).toMatch(/^validate failed: \/usr\/bin\/test exit code 1/);
    expect(result.steps.map((s) => [s.step, s.ok])).toEqual([
      ['write', true],
      ['swap', true],
      ['validate', false],
      ['rollback', true],
    ]);
    expect(readFileSync(`${dir}/certs/fullchain.pem`)).toEqual(certBefore);
    expect(readFileSync(`${dir}/certs/server.key`)).toEqual(keyBefore);
    expect(statSync(`${dir}/certs/server.key`).mode & 0o777).toBe(0o600);
    expect(opensslServedFingerprint(port)).toBe(servedBefore);
  });

  it('a reload that does not take effect fails verification: restored and reloaded again', async () => {
    const servedBefore = opensslServedFingerprint(port);
    const certBefore = readFileSync(`${dir}/certs/fullchain.pem`);
    const result = await deploy(ca.issue(), { reload_command: 'true' });
    expect(result).toMatchObject({ ok: false, rolledBack: true, servedFingerprintSha256: servedBefore });
    expect(result.steps.map((s) => s.step)).toEqual([
      'write',
      'swap',
      'validate',
      'reload',
      'verify',
      'rollback',
      'reload',
    ]);
    expect(readFileSync(`${dir}/certs/fullchain.pem`)).toEqual(certBefore);
    expect(opensslServedFingerprint(port)).toBe(servedBefore);
  });

  it('a command that outlives its timeout is reported as timed out and rolled back', async () => {
    const certBefore = readFileSync(`${dir}/certs/fullchain.pem`);
    const result = await connector.deploy({ ...config, validate_command: 'sleep 4' }, ca.issue(), host, {
      commandTimeoutMs: 500,
    });
    expect(result).toMatchObject({ ok: false, rolledBack: true });
    expect(result.error).toMatch(/^validate failed: sleep timed out after 500 ms/);
    expect(readFileSync(`${dir}/certs/fullchain.pem`)).toEqual(certBefore);
  });

  it('password auth: a throwaway account deploys into its own directory; a wrong password fails cleanly', async () => {
    const home = mkdtempSync(join(tmpdir(), 'certlane-ssh-user-'));
    const user = createThrowawayUser(home);
    try {
      const material = ca.issue();
      const base = {
        host: '127.0.0.1',
        port: String(sshd.port),
        username: user.name,
        auth_method: 'password',
        host_key_fingerprint: sshd.hostKeyFingerprint,
        cert_path: `${home}/cert.pem`,
        chain_path: `${home}/chain.pem`,
        key_path: `${home}/key.pem`,
        file_mode: '0640',
        validate_command: `/usr/bin/test -s ${home}/key.pem`,
      };
      const result = await connector.deploy({ ...base, password: user.password }, material, host);
      expect(result.error).toBeUndefined();
      expect(result.ok).toBe(true);
      expect(readFileSync(`${home}/cert.pem`, 'utf8')).toBe(`${material.certificatePem.trim()}\n`);
      expect(readFileSync(`${home}/chain.pem`, 'utf8')).toBe(`${material.chainPem.trim()}\n`);
      expect(statSync(`${home}/key.pem`).mode & 0o777).toBe(0o640);
      expect(statSync(`${home}/key.pem`).uid).not.toBe(0);

      const wrong = await connector.deploy({ ...base, password: 'not-the-password' }, ca.issue(), host);
      expect(wrong).toMatchObject({ ok: false, rolledBack: false });
      expect(wrong.error).toBe(
        `write failed: ssh to 127.0.0.1:${sshd.port}: authentication as ${user.name} failed`,
      );
      expect(readFileSync(`${home}/cert.pem`, 'utf8')).toBe(`${material.certificatePem.trim()}\n`);
      expect(JSON.stringify([result, wrong, logged])).not.toContain(user.password);
    } finally {
      user.remove();
      rmSync(home, { recursive: true, force: true });
    }
  });
});
