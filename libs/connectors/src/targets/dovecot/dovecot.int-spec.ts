import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { targetConnector } from '../registry';
import { describeServerScenario } from '../testing/server-scenarios';
import { ServerSite, siteTargetConfig, writeDovecotSite } from '../testing/server-sites';
import { freePort, ServerProcess } from '../testing/servers';
import { createTestCa, TestCa } from '../testing/test-certificates';

// A real Dovecot (Debian package dovecot-imapd; .ci/run installs it) in the foreground with its
// own config, base_dir and log in a temporary directory; IMAP on a loopback high port, verified
// over IMAP STARTTLS by the engine and by `openssl s_client -starttls imap`.
describe('dovecot connector against a real Dovecot (IMAP STARTTLS)', () => {
  let ca: TestCa;
  let dir: string;
  let port: number;
  let site: ServerSite;
  let dovecot: ServerProcess | undefined;

  beforeAll(async () => {
    ca = createTestCa();
    dir = mkdtempSync(join(tmpdir(), 'certlane-dovecot-'));
    port = await freePort();
    site = writeDovecotSite(dir, port);
  });

  afterAll(async () => {
    await dovecot?.stop();
    ca?.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  describeServerScenario({
    ca: () => ca,
    connector: targetConnector('dovecot'),
    port: () => port,
    starttls: 'imap',
    config: () => siteTargetConfig(site),
    serverConfigPath: () => site.serverConfig,
    brokenLine: 'this line is not a setting',
    deployedFiles: () => [site.certPath, site.keyPath],
    keyFile: () => [site.keyPath, 0o600],
    start: () => {
      dovecot = site.start();
    },
  });
});
