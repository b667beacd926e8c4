import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { targetConnector } from '../registry';
import { describeServerScenario } from '../testing/server-scenarios';
import { freePort, ServerProcess, startServer } from '../testing/servers';
import { createTestCa, TestCa } from '../testing/test-certificates';

// A real Caddy (Debian package caddy; .ci/run installs it) with a Caddyfile in a temporary
// directory, its admin API on another loopback port; reload is `caddy reload --force` (Caddy
// skips a reload whose config text is unchanged, and only the certificate files changed).
describe('caddy connector against a real Caddy', () => {
  let ca: TestCa;
  let dir: string;
  let port: number;
  let adminPort: number;
  let caddyfile: string;
  let caddy: ServerProcess | undefined;
  const env = () => ({ HOME: dir, XDG_DATA_HOME: join(dir, 'data'), XDG_CONFIG_HOME: join(dir, 'config') });

  beforeAll(async () => {
    ca = createTestCa();
    dir = mkdtempSync(join(tmpdir(), 'certlane-caddy-'));
    mkdirSync(join(dir, 'certs'));
    port = await freePort();
    adminPort = await freePort();
    caddyfile = join(dir, 'Caddyfile');
    writeFileSync(
      caddyfile,
      `{
\tadmin 127.0.0.1:${adminPort}
\tauto_https disable_redirects
\tstorage file_system ${dir}/storage
\tskip_install_trust
}
https://localhost:${port} {
\tbind 127.0.0.1
\ttls ${dir}/certs/cert.pem ${dir}/certs/key.pem
\trespond "ok"
}
`,
    );
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
    config: () => ({
      cert_path: `${dir}/certs/cert.pem`,
      key_path: `${dir}/certs/key.pem`,
      validate_command: `caddy validate --config ${caddyfile} --adapter caddyfile`,
      reload_command: `caddy reload --config ${caddyfile} --adapter caddyfile --address 127.0.0.1:${adminPort} --force`,
    }),
    serverConfigPath: () => caddyfile,
    brokenLine: '}',
    deployedFiles: () => [`${dir}/certs/cert.pem`, `${dir}/certs/key.pem`],
    keyFile: () => [`${dir}/certs/key.pem`, 0o600],
    start: () => {
      caddy = startServer('caddy', ['run', '--config', caddyfile, '--adapter', 'caddyfile'], env());
    },
  });
});
