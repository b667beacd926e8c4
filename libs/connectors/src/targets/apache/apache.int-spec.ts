import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { targetConnector } from '../registry';
import { describeServerScenario } from '../testing/server-scenarios';
import { freePort, ServerProcess, startServer } from '../testing/servers';
import { createTestCa, TestCa } from '../testing/test-certificates';

// A real Apache httpd (Debian package apache2; .ci/run installs it) in the foreground with a
// self-contained config in a temporary directory; reload is `apache2 -k graceful`.
describe('apache connector against a real Apache httpd', () => {
  let ca: TestCa;
  let dir: string;
  let port: number;
  let conf: string;
  let apache: ServerProcess | undefined;

  beforeAll(async () => {
    ca = createTestCa();
    dir = mkdtempSync(join(tmpdir(), 'certlane-apache-'));
    mkdirSync(join(dir, 'certs'));
    port = await freePort();
    conf = join(dir, 'httpd.conf');
    const modules = '/usr/lib/apache2/modules';
    writeFileSync(
      conf,
      `ServerRoot ${dir}
ServerName localhost
DefaultRuntimeDir ${dir}
PidFile ${dir}/httpd.pid
ErrorLog ${dir}/error.log
LogLevel warn
LoadModule mpm_event_module ${modules}/mod_mpm_event.so
LoadModule authz_core_module ${modules}/mod_authz_core.so
LoadModule socache_shmcb_module ${modules}/mod_socache_shmcb.so
LoadModule ssl_module ${modules}/mod_ssl.so
User www-data
Group www-data
Listen 127.0.0.1:${port}
SSLSessionCache none
<VirtualHost 127.0.0.1:${port}>
  SSLEngine on
  SSLCertificateFile ${dir}/certs/cert.pem
  SSLCertificateChainFile ${dir}/certs/chain.pem
  SSLCertificateKeyFile ${dir}/certs/server.key
</VirtualHost>
`,
    );
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
      cert_path: `${dir}/certs/cert.pem`,
      chain_path: `${dir}/certs/chain.pem`,
      key_path: `${dir}/certs/server.key`,
      file_mode: '0640',
      validate_command: `apache2 -f ${conf} -t`,
      reload_command: `apache2 -f ${conf} -k graceful`,
    }),
    serverConfigPath: () => conf,
    brokenLine: 'ThisIsNotADirective on',
    deployedFiles: () => [`${dir}/certs/cert.pem`, `${dir}/certs/chain.pem`, `${dir}/certs/server.key`],
    keyFile: () => [`${dir}/certs/server.key`, 0o640],
    start: () => {
      apache = startServer('apache2', ['-f', conf, '-DFOREGROUND']);
    },
  });
});
