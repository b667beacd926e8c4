import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { targetConnector } from '../registry';
import { describeServerScenario } from '../testing/server-scenarios';
import { freePort, ServerProcess, startServer } from '../testing/servers';
import { createTestCa, TestCa } from '../testing/test-certificates';
import { haproxyPem } from './haproxy.connector';

// A real HAProxy (Debian package; .ci/run installs it) in master-worker mode (-W) on a loopback
// high port: the master's pid stays, so the reload command is an argv `kill -USR2 <pid>`, the
// same signal systemd's haproxy.service reload sends.
describe('haproxy connector against a real HAProxy', () => {
  let ca: TestCa;
  let dir: string;
  let port: number;
  let cfg: string;
  let haproxy: ServerProcess | undefined;
  const pemPath = () => join(dir, 'site.pem');

  beforeAll(async () => {
    ca = createTestCa();
    dir = mkdtempSync(join(tmpdir(), 'certlane-haproxy-'));
    port = await freePort();
    cfg = join(dir, 'haproxy.cfg');
    writeFileSync(
      cfg,
      `global
  maxconn 64
defaults
  mode http
  timeout connect 2s
  timeout client 5s
  timeout server 5s
frontend fe
  bind 127.0.0.1:${port} ssl crt ${dir}/site.pem
  http-request return status 200 content-type text/plain string ok
`,
    );
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
      validate_command: `haproxy -c -q -f ${cfg}`,
      reload_command: `kill -USR2 ${haproxy?.child.pid ?? 0}`,
    }),
    serverConfigPath: () => cfg,
    brokenLine: '  this-is-not-a-keyword at all',
    deployedFiles: () => [pemPath()],
    keyFile: () => [pemPath(), 0o600],
    start: () => {
      haproxy = startServer('haproxy', ['-W', '-db', '-f', cfg, '-p', join(dir, 'haproxy.pid')]);
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
