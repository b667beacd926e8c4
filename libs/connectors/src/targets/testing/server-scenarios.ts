// The scenario every real-server test runs: deploy an initial certificate (files only), start
// the server, deploy a renewal (validate + reload + verify), then a broken server config (the
// validate command fails) and a reload that does not take effect (verification fails), both
// rolled back with the old certificate still served, and a final renewal that works again.
import { appendFileSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { NodeDeploymentHost } from '../engine/node-deployment-host';
import type { DeploymentMaterial, DeploymentResult, TargetConnector } from '../target-connector';
import { opensslServedFingerprint, waitUntil } from './servers';
import type { TestCa } from './test-certificates';

export interface ServerScenario {
  ca: () => TestCa;
  connector: TargetConnector;
  port: () => number;
  /** The target config with validate and reload commands. */
  config: () => Record<string, string>;
  /** The config file a broken line is appended to. */
  serverConfigPath: () => string;
  brokenLine: string;
  /** The files the deployment writes (checked byte for byte after rollbacks). */
  deployedFiles: () => string[];
  /** The file holding the key, and its expected mode. */
  keyFile: () => [string, number];
  start: () => void;
  /**
   * False for servers that read the certificate files per worker process (Postfix's smtpd):
   * there a reload that does nothing is not observable, so that case is not exercised.
   */
  checksIneffectiveReload?: boolean;
  /** Mail servers: verification and openssl speak STARTTLS first. */
  starttls?: 'smtp' | 'imap';
}

export function describeServerScenario(scenario: ServerScenario): void {
  const host = new NodeDeploymentHost();
  const deploy = (
    material: DeploymentMaterial,
    overrides: Record<string, string> = {},
  ): Promise<DeploymentResult> =>
    scenario.connector.deploy({ ...scenario.config(), ...overrides }, material, host, {
      endpoint: `127.0.0.1:${scenario.port()}`,
      serverName: 'localhost',
      verifyDeadlineMs: 5_000,
    });
  const served = () => opensslServedFingerprint(scenario.port(), { starttls: scenario.starttls });
  const snapshot = () => scenario.deployedFiles().map((path) => readFileSync(path));

  it('deploys an initial certificate, starts, then takes a renewed one with a reload', async () => {
    const initial = scenario.ca().issue();
    const { reload_command: _reload, ...filesOnly } = scenario.config();
    const first = await scenario.connector.deploy(filesOnly, initial, host);
    expect(first.error).toBeUndefined();
    const [keyFile, keyMode] = scenario.keyFile();
    expect(statSync(keyFile).mode & 0o777).toBe(keyMode);

    scenario.start();
    await waitUntil(
      () => served() === initial.fingerprintSha256,
      'the server serving the initial certificate',
    );

    const renewed = scenario.ca().issue();
    const result = await deploy(renewed);
    expect(result.error).toBeUndefined();
    expect(result).toMatchObject({
      ok: true,
      rolledBack: false,
      servedFingerprintSha256: renewed.fingerprintSha256,
    });
    expect(result.steps.map((s) => s.step)).toEqual(['write', 'swap', 'validate', 'reload', 'verify']);
    expect(served()).toBe(renewed.fingerprintSha256);
  });

  it('a broken server config fails validation: files rolled back, the old certificate still served', async () => {
    const servedBefore = served();
    const filesBefore = snapshot();
    const original = readFileSync(scenario.serverConfigPath(), 'utf8');
    appendFileSync(scenario.serverConfigPath(), `${scenario.brokenLine}\n`);
    try {
      const result = await deploy(scenario.ca().issue());
      expect(result).toMatchObject({ ok: false, rolledBack: true });
      expect(result.error).toMatch(/^validate failed: /);
      expect(result.steps.map((s) => [s.step, s.ok])).toEqual([
        ['write', true],
        ['swap', true],
        ['validate', false],
        ['rollback', true],
      ]);
    } finally {
      writeFileSync(scenario.serverConfigPath(), original);
    }
    expect(snapshot()).toEqual(filesBefore);
    expect(served()).toBe(servedBefore);
  });

  if (scenario.checksIneffectiveReload !== false) {
    it('a reload that does not take effect fails verification: rolled back, reloaded, the old certificate served', async () => {
      const servedBefore = served();
      const filesBefore = snapshot();
      const result = await deploy(scenario.ca().issue(), { reload_command: 'true' });
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
      expect(snapshot()).toEqual(filesBefore);
      expect(served()).toBe(servedBefore);
    });
  }

  it('a renewal after the failures is served (the rollbacks left the server consistent)', async () => {
    const renewed = scenario.ca().issue();
    const result = await deploy(renewed);
    expect(result.error).toBeUndefined();
    expect(served()).toBe(renewed.fingerprintSha256);
  });
}
