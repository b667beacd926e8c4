import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { targetConnector } from '../registry';
import { describeServerScenario } from '../testing/server-scenarios';
import { ServerSite, siteTargetConfig, writeCaddySite } from '../testing/server-sites';
import { freePort, ServerProcess } from '../testing/servers';
import { createTestCa, TestCa } from '../testing/test-certificates';

// A real Caddy (Debian package caddy; .ci/run installs it) with a Caddyfile in a temporary
// directory, its admin API on another loopback port; reload is `caddy reload --force` (Caddy
// skips a reload whose config text is unchanged, and only the certificate files changed).
describe('caddy connector against a real Caddy', () => {
  let ca: TestCa;
  let dir: string;
  let port: number;
  let site: ServerSite;
  let caddy: ServerProcess | undefined;

  beforeAll(async () => {
    ca = createTestCa();
    dir = mkdtempSync(join(tmpdir(), 'certlane-caddy-'));
    port = await freePort();
    site = writeCaddySite(dir, { port, adminPort: await freePort() }, { home: dir });
  });

  afterAll(async () => {
    await caddy?.stop();
    ca?.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  describeServerScenario({
    ca: () => ca,
    connector: targetConnector('caddy'),
    port: () => port,
    config: () => siteTargetConfig(site),
    serverConfigPath: () => site.serverConfig,
    brokenLine: '}',
    deployedFiles: () => [site.certPath, site.keyPath],
    keyFile: () => [site.keyPath, 0o600],
    start: () => {
      caddy = site.start();
    },
  });
});
