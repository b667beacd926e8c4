import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { targetConnector } from '../registry';
import { describeServerScenario } from '../testing/server-scenarios';
import { freePort, ServerProcess, startServer } from '../testing/servers';
import { createTestCa, TestCa } from '../testing/test-certificates';

// A real Dovecot (Debian package dovecot-imapd; .ci/run installs it) in the foreground with its
// own config, base_dir and log in a temporary directory; IMAP on a loopback high port, verified
// over IMAP STARTTLS by the engine and by `openssl s_client -starttls imap`.
describe('dovecot connector against a real Dovecot (IMAP STARTTLS)', () => {
  let ca: TestCa;
  let dir: string;
  let port: number;
  let conf: string;
  let dovecot: ServerProcess | undefined;

  beforeAll(async () => {
    ca = createTestCa();
    dir = mkdtempSync(join(tmpdir(), 'certlane-dovecot-'));
    for (const sub of ['certs', 'run', 'state']) mkdirSync(join(dir, sub));
    port = await freePort();
    conf = join(dir, 'dovecot.conf');
    writeFileSync(
      conf,
      `base_dir = ${dir}/run
state_dir = ${dir}/state
log_path = ${dir}/dovecot.log
protocols = imap
listen = 127.0.0.1
ssl = yes
ssl_cert = <${dir}/certs/cert.pem
ssl_key = <${dir}/certs/key.pem
passdb {
  driver = static
  args = password=unused
}
userdb {
  driver = static
  args = uid=nobody gid=nogroup home=${dir}/home
}
service imap-login {
  chroot =
  inet_listener imap {
    port = ${port}
  }
  inet_listener imaps {
    port = 0
  }
}
service anvil {
  chroot =
}
`,
    );
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
    config: () => ({
      cert_path: `${dir}/certs/cert.pem`,
      key_path: `${dir}/certs/key.pem`,
      validate_command: `doveconf -c ${conf} -n`,
      reload_command: `doveadm -c ${conf} reload`,
    }),
    serverConfigPath: () => conf,
    brokenLine: 'this line is not a setting',
    deployedFiles: () => [`${dir}/certs/cert.pem`, `${dir}/certs/key.pem`],
    keyFile: () => [`${dir}/certs/key.pem`, 0o600],
    start: () => {
      dovecot = startServer('dovecot', ['-F', '-c', conf]);
    },
  });
});
