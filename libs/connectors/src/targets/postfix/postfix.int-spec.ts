import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { targetConnector } from '../registry';
import { describeServerScenario } from '../testing/server-scenarios';
import { freePort, ServerProcess, startServer } from '../testing/servers';
import { createTestCa, TestCa } from '../testing/test-certificates';

// A real Postfix instance (Debian package postfix; .ci/run installs it) with its own config,
// queue and data directories in a temporary directory (`postfix -c <dir> start-fg`), smtpd on a
// loopback high port, verified over SMTP STARTTLS by the engine and `openssl s_client -starttls smtp`.
describe('postfix connector against a real Postfix (SMTP STARTTLS)', () => {
  let ca: TestCa;
  let dir: string;
  let port: number;
  let conf: string;
  let postfix: ServerProcess | undefined;

  beforeAll(async () => {
    ca = createTestCa();
    dir = mkdtempSync(join(tmpdir(), 'certlane-postfix-'));
    // The postfix daemons traverse the directory as the postfix user.
    chmodSync(dir, 0o755);
    for (const sub of ['conf', 'certs', 'queue', 'data']) mkdirSync(join(dir, sub));
    const postfixUid = Number(execFileSync('id', ['-u', 'postfix']).toString().trim());
    chownSync(join(dir, 'data'), postfixUid, userInfo().gid);
    port = await freePort();
    conf = join(dir, 'conf');
    writeFileSync(
      join(conf, 'main.cf'),
      `compatibility_level = 3.6
queue_directory = ${dir}/queue
data_directory = ${dir}/data
mail_owner = postfix
setgid_group = postdrop
inet_interfaces = 127.0.0.1
inet_protocols = ipv4
myhostname = mail.certlane.test
mydestination =
maillog_file_prefixes = ${dir}
maillog_file = ${dir}/maillog
smtpd_tls_security_level = may
smtpd_tls_cert_file = ${dir}/certs/cert.pem
smtpd_tls_key_file = ${dir}/certs/key.pem
`,
    );
    const services = [
      `127.0.0.1:${port} inet n - n - - smtpd`,
      'pickup unix n - n 60 1 pickup',
      'cleanup unix n - n - 0 cleanup',
      'qmgr unix n - n 300 1 qmgr',
      'tlsmgr unix - - n 1000? 1 tlsmgr',
      'rewrite unix - - n - - trivial-rewrite',
      'bounce unix - - n - 0 bounce',
      'defer unix - - n - 0 bounce',
      'trace unix - - n - 0 bounce',
      'verify unix - - n - 1 verify',
      'flush unix n - n 1000? 0 flush',
      'proxymap unix - - n - - proxymap',
      'smtp unix - - n - - smtp',
      'relay unix - - n - - smtp',
      'showq unix n - n - - showq',
      'error unix - - n - - error',
      'retry unix - - n - - error',
      'discard unix - - n - - discard',
      'local unix - n n - - local',
      'anvil unix - - n - 1 anvil',
      'scache unix - - n - 1 scache',
      'postlog unix-dgram n - n - 1 postlogd',
    ];
    writeFileSync(join(conf, 'master.cf'), `${services.join('\n')}\n`);
  });

  afterAll(async () => {
    try {
      execFileSync('postfix', ['-c', conf, 'stop'], { stdio: 'ignore' });
    } catch {
      // not running
    }
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
    config: () => ({
      cert_path: `${dir}/certs/cert.pem`,
      key_path: `${dir}/certs/key.pem`,
      validate_command: `postfix -c ${conf} check`,
      reload_command: `postfix -c ${conf} reload`,
    }),
    serverConfigPath: () => join(conf, 'main.cf'),
    brokenLine: 'this line is not a parameter',
    deployedFiles: () => [`${dir}/certs/cert.pem`, `${dir}/certs/key.pem`],
    keyFile: () => [`${dir}/certs/key.pem`, 0o600],
    start: () => {
      postfix = startServer('postfix', ['-c', conf, 'start-fg']);
    },
  });
});
