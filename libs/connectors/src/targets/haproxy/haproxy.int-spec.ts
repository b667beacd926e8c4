import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { targetConnector } from '../registry';
import { describeServerScenario } from '../testing/server-scenarios';
import { HaproxySite, writeHaproxySite } from '../testing/server-sites';
import { freePort, ServerProcess } from '../testing/servers';
import { createTestCa, TestCa } from '../testing/test-certificates';
import { haproxyPem } from './haproxy.connector';

// A real HAProxy (Debian package; .ci/run installs it) in master-worker mode (-W) on a loopback
// high port: the master's pid stays, so the reload command is an argv `kill -USR2 <pid>`, the
// same signal systemd's haproxy.service reload sends.
describe('haproxy connector against a real HAProxy', () => {
  let ca: TestCa;
  let dir: string;
  let port: number;
  let site: HaproxySite;
  let haproxy: ServerProcess | undefined;
  const pemPath = () => site.pemPath;

  beforeAll(async () => {
    ca = createTestCa();
    dir = mkdtempSync(join(tmpdir(), 'certlane-haproxy-'));
    port = await freePort();
    site = writeHaproxySite(dir, port);
  });

  afterAll(async () => {
    await haproxy?.stop();
    ca?.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  describeServerScenario({
    ca: () => ca,
    connector: targetConnector('haproxy'),
    port: () => port,
    config: () => ({
      pem_path: pemPath(),
      validate_command: site.validateCommand,
      reload_command: site.reloadCommand(haproxy),
    }),
    serverConfigPath: () => site.serverConfig,
    brokenLine: '  this-is-not-a-keyword at all',
    deployedFiles: () => [pemPath()],
    keyFile: () => [pemPath(), 0o600],
    start: () => {
      haproxy = site.start();
    },
  });

  it('the PEM holds the leaf, then the chain, then the key', () => {
    const pem = readFileSync(pemPath(), 'utf8');
    const blocks = pem.match(/-----BEGIN [A-Z ]+-----/g);
    expect(blocks).toEqual([
      '-----BEGIN CERTIFICATE-----',
      '-----BEGIN CERTIFICATE-----',
      '-----BEGIN PRIVATE KEY-----',
    ]);
    const material = ca.issue();
    expect(haproxyPem(material)).toBe(
      `${material.certificatePem.trim()}\n${material.chainPem.trim()}\n${material.privateKeyPem.trim()}\n`,
    );
  });
});
