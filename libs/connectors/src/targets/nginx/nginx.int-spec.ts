import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NodeDeploymentHost } from '../engine/node-deployment-host';
import { targetConnector } from '../registry';
import type { DeploymentMaterial } from '../target-connector';
import { ServerSite, siteTargetConfig, writeNginxSite } from '../testing/server-sites';
import { freePort, opensslServedFingerprint, ServerProcess, waitUntil } from '../testing/servers';
import { createTestCa, TestCa } from '../testing/test-certificates';

// A real nginx (Debian package; .ci/run installs it) on a loopback high port with its own
// prefix, config, pid file and logs in a temporary directory.
describe('nginx connector against a real nginx', () => {
  let ca: TestCa;
  let dir: string;
  let port: number;
  let nginx: ServerProcess;
  let site: ServerSite;
  let conf: string;
  let config: Record<string, string>;
  const host = new NodeDeploymentHost();
  const connector = targetConnector('nginx');
  const deploy = (material: DeploymentMaterial, overrides: Record<string, string> = {}) =>
    connector.deploy({ ...config, ...overrides }, material, host, {
      endpoint: `127.0.0.1:${port}`,
      serverName: 'localhost',
      verifyDeadlineMs: 5_000,
    });

  beforeAll(async () => {
    ca = createTestCa();
    dir = mkdtempSync(join(tmpdir(), 'certlane-nginx-'));
    port = await freePort();
    site = writeNginxSite(dir, port);
    conf = site.serverConfig;
    config = siteTargetConfig(site);
  });

  afterAll(async () => {
    await nginx?.stop();
    ca?.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  it('deploys an initial certificate, starts, then takes a renewed one with a reload', async () => {
    const initial = ca.issue();
    // Nothing runs yet: deploy the files only (no reload, no endpoint).
    const first = await connector.deploy(
      { cert_path: config.cert_path, key_path: config.key_path, validate_command: config.validate_command },
      initial,
      host,
    );
    expect(first).toMatchObject({ ok: true, rolledBack: false });
    expect(statSync(config.key_path).mode & 0o777).toBe(0o600);
    expect(statSync(config.cert_path).mode & 0o777).toBe(0o644);

    nginx = site.start();
    await waitUntil(
      () => opensslServedFingerprint(port) === initial.fingerprintSha256,
      'nginx serving the initial certificate',
    );

    const renewed = ca.issue();
    const result = await deploy(renewed);
    expect(result.error).toBeUndefined();
    expect(result).toMatchObject({
      ok: true,
      rolledBack: false,
      servedFingerprintSha256: renewed.fingerprintSha256,
    });
    expect(result.steps.map((s) => s.step)).toEqual(['write', 'swap', 'validate', 'reload', 'verify']);
    // An old worker may still take a connection while it drains after the reload.
    await waitUntil(
      () => opensslServedFingerprint(port) === renewed.fingerprintSha256,
      'nginx serving the renewed certificate to openssl',
    );
    expect(readFileSync(config.cert_path, 'utf8')).toBe(
      renewed.certificatePem.trim() + '\n' + renewed.chainPem.trim() + '\n',
    );
    expect(readFileSync(`${config.cert_path}.certlane-prev`, 'utf8')).toContain(
      initial.certificatePem.trim(),
    );
  });

  it('a broken nginx config fails validation: the files are rolled back and the old certificate is still served', async () => {
    const servedBefore = opensslServedFingerprint(port);
    const certBefore = readFileSync(config.cert_path);
    const keyBefore = readFileSync(config.key_path);
    const original = readFileSync(conf, 'utf8');
    appendFileSync(conf, 'this is not nginx syntax;\n');
    try {
      const result = await deploy(ca.issue());
      expect(result).toMatchObject({ ok: false, rolledBack: true });
      expect(result.error).toMatch(/^validate failed: nginx exit code 1/);
      expect(result.steps.map((s) => [s.step, s.ok])).toEqual([
        ['write', true],
        ['swap', true],
        ['validate', false],
        ['rollback', true],
      ]);
    } finally {
      writeFileSync(conf, original);
    }
    expect(readFileSync(config.cert_path)).toEqual(certBefore);
    expect(readFileSync(config.key_path)).toEqual(keyBefore);
    expect(opensslServedFingerprint(port)).toBe(servedBefore);
  });

  it('a reload that does not take effect fails verification: rolled back, reloaded, the old certificate served', async () => {
    const servedBefore = opensslServedFingerprint(port);
    const certBefore = readFileSync(config.cert_path);
    // `true` exits 0 but reloads nothing: nginx keeps serving the old leaf.
    const result = await deploy(ca.issue(), {
      reload_command: 'true',
      validate_command: config.validate_command,
    });
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
    expect(readFileSync(config.cert_path)).toEqual(certBefore);
    expect(opensslServedFingerprint(port)).toBe(servedBefore);
  });

  it('a renewal after the failures is served again (the rollback left nginx consistent)', async () => {
    const renewed = ca.issue();
    const result = await deploy(renewed);
    expect(result.ok).toBe(true);
    // An old worker may still take a connection while it drains after the reload.
    await waitUntil(
      () => opensslServedFingerprint(port) === renewed.fingerprintSha256,
      'nginx serving the renewed certificate to openssl',
    );
  });
});
