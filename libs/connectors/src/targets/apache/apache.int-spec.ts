import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { targetConnector } from '../registry';
import { describeServerScenario } from '../testing/server-scenarios';
import { ServerSite, writeApacheSite } from '../testing/server-sites';
import { freePort, ServerProcess } from '../testing/servers';
import { createTestCa, TestCa } from '../testing/test-certificates';

// A real Apache httpd (Debian package apache2; .ci/run installs it) in the foreground with a
// self-contained config in a temporary directory; reload is `apache2 -k graceful`.
describe('apache connector against a real Apache httpd', () => {
  let ca: TestCa;
  let dir: string;
  let port: number;
  let site: ServerSite & { chainPath: string };
  let apache: ServerProcess | undefined;

  beforeAll(async () => {
    ca = createTestCa();
    dir = mkdtempSync(join(tmpdir(), 'certlane-apache-'));
    port = await freePort();
    site = writeApacheSite(dir, port);
  });

  afterAll(async () => {
    await apache?.stop();
    ca?.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  describeServerScenario({
    ca: () => ca,
    connector: targetConnector('apache'),
    port: () => port,
    config: () => ({
      cert_path: site.certPath,
      chain_path: site.chainPath,
      key_path: site.keyPath,
      file_mode: '0640',
      validate_command: site.validateCommand,
      reload_command: site.reloadCommand,
    }),
    serverConfigPath: () => site.serverConfig,
    brokenLine: 'ThisIsNotADirective on',
    deployedFiles: () => [site.certPath, site.chainPath, site.keyPath],
    keyFile: () => [site.keyPath, 0o640],
    start: () => {
      apache = site.start();
    },
  });
});
