import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { targetConnector } from '../registry';
import { describeServerScenario } from '../testing/server-scenarios';
import { ServerSite, siteTargetConfig, writePostfixSite } from '../testing/server-sites';
import { freePort, ServerProcess } from '../testing/servers';
import { createTestCa, TestCa } from '../testing/test-certificates';

// A real Postfix instance (Debian package postfix; .ci/run installs it) with its own config,
// queue and data directories in a temporary directory (`postfix -c <dir> start-fg`), smtpd on a
// loopback high port, verified over SMTP STARTTLS by the engine and `openssl s_client -starttls smtp`.
describe('postfix connector against a real Postfix (SMTP STARTTLS)', () => {
  let ca: TestCa;
  let dir: string;
  let port: number;
  let site: ServerSite;
  let postfix: ServerProcess | undefined;

  beforeAll(async () => {
    ca = createTestCa();
    dir = mkdtempSync(join(tmpdir(), 'certlane-postfix-'));
    port = await freePort();
    site = writePostfixSite(dir, port, 'mail.certlane.test');
  });

  afterAll(async () => {
    await postfix?.stop();
    ca?.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  describeServerScenario({
    ca: () => ca,
    connector: targetConnector('postfix'),
    port: () => port,
    starttls: 'smtp',
    // smtpd reads the certificate when a new smtpd process starts, not only at reload.
    checksIneffectiveReload: false,
    config: () => siteTargetConfig(site),
    serverConfigPath: () => site.serverConfig,
    brokenLine: 'this line is not a parameter',
    deployedFiles: () => [site.certPath, site.keyPath],
    keyFile: () => [site.keyPath, 0o600],
    start: () => {
      postfix = site.start();
    },
  });
});
