// Self-contained configs of real servers for the integration tests: each writer puts one server's
// config (and the directories it needs) under a temporary directory, listening on a loopback high
// port, and returns the certificate paths it serves, its validate and reload commands, and how to
// start it in the foreground. The certificate files themselves are the test's to write.
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { ServerProcess, startServer } from './servers';

export interface ServerSite {
  /** The config file a test may break (a broken line appended). */
  serverConfig: string;
  certPath: string;
  keyPath: string;
  validateCommand: string;
  reloadCommand: string;
  start(): ServerProcess;
}

/** The target config of a site: its certificate and key paths, validate and reload commands. */
export const siteTargetConfig = (site: ServerSite) => ({
  cert_path: site.certPath,
  key_path: site.keyPath,
  validate_command: site.validateCommand,
  reload_command: site.reloadCommand,
});

/**
 * nginx with its own prefix, pid file, temp paths and logs; `binary` names nginx in the commands.
 * With `staplingTrust` (the issuer chain's PEM file) it staples OCSP responses it verified.
 */
export function writeNginxSite(
  dir: string,
  port: number,
  options: { serverName?: string; binary?: string; staplingTrust?: string } = {},
): ServerSite {
  mkdirSync(join(dir, 'certs'), { recursive: true });
  mkdirSync(join(dir, 'logs'), { recursive: true });
  const conf = join(dir, 'nginx.conf');
  const certPath = `${dir}/certs/fullchain.pem`;
  const keyPath = `${dir}/certs/server.key`;
  writeFileSync(
    conf,
    `daemon off;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/logs/error.log;
events { worker_connections 64; }
http {
  access_log off;
  client_body_temp_path ${dir}/body; proxy_temp_path ${dir}/proxy; fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi; scgi_temp_path ${dir}/scgi;
  server {
    listen 127.0.0.1:${port} ssl;
    server_name ${options.serverName ?? 'localhost'};
    ssl_certificate ${certPath};
    ssl_certificate_key ${keyPath};${
      options.staplingTrust
        ? `
    ssl_stapling on;
    ssl_stapling_verify on;
    ssl_trusted_certificate ${options.staplingTrust};`
        : ''
    }
    return 200 "ok\\n";
  }
}
`,
  );
  const args = ['-p', `${dir}/`, '-c', conf, '-e', `${dir}/logs/error.log`];
  const command = `${options.binary ?? 'nginx'} ${args.join(' ')}`;
  return {
    serverConfig: conf,
    certPath,
    keyPath,
    validateCommand: `${command} -t`,
    reloadCommand: `${command} -s reload`,
    start: () => startServer('nginx', args),
  };
}

/**
 * Apache httpd (mpm_event, mod_ssl) with one TLS virtual host; reload is `-k graceful`. With
 * `stapling`, mod_ssl staples OCSP responses (it asks the responder with POST).
 */
export function writeApacheSite(
  dir: string,
  port: number,
  serverName = 'localhost',
  options: { stapling?: boolean } = {},
): ServerSite & { chainPath: string } {
  mkdirSync(join(dir, 'certs'), { recursive: true });
  const conf = join(dir, 'httpd.conf');
  const modules = '/usr/lib/apache2/modules';
  writeFileSync(
    conf,
    `ServerRoot ${dir}
ServerName ${serverName}
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
SSLSessionCache none${
      options.stapling
        ? `
SSLStaplingCache shmcb:${dir}/stapling(65536)
SSLStaplingStandardCacheTimeout 60`
        : ''
    }
<VirtualHost 127.0.0.1:${port}>
  ServerName ${serverName}
  SSLEngine on
  SSLCertificateFile ${dir}/certs/cert.pem
  SSLCertificateChainFile ${dir}/certs/chain.pem
  SSLCertificateKeyFile ${dir}/certs/server.key${options.stapling ? '\n  SSLUseStapling on' : ''}
</VirtualHost>
`,
  );
  return {
    serverConfig: conf,
    certPath: `${dir}/certs/cert.pem`,
    chainPath: `${dir}/certs/chain.pem`,
    keyPath: `${dir}/certs/server.key`,
    validateCommand: `apache2 -f ${conf} -t`,
    reloadCommand: `apache2 -f ${conf} -k graceful`,
    start: () => startServer('apache2', ['-f', conf, '-DFOREGROUND']),
  };
}

/** Caddy's CLI and server keep their state under HOME and the XDG dirs: all under `home`. */
export const caddyEnv = (home: string) => ({
  HOME: home,
  XDG_DATA_HOME: join(home, 'data'),
  XDG_CONFIG_HOME: join(home, 'config'),
});

/**
 * Caddy with a Caddyfile, its admin API on another loopback port, its state under `home`; reload
 * is `caddy reload --force` (Caddy skips a reload whose config text is unchanged, and only the
 * certificate files changed).
 */
export function writeCaddySite(
  dir: string,
  ports: { port: number; adminPort: number },
  options: { serverName?: string; home: string },
): ServerSite {
  mkdirSync(join(dir, 'certs'), { recursive: true });
  const caddyfile = join(dir, 'Caddyfile');
  writeFileSync(
    caddyfile,
    `{
\tadmin 127.0.0.1:${ports.adminPort}
\tauto_https disable_redirects
\tstorage file_system ${dir}/storage
\tskip_install_trust
}
https://${options.serverName ?? 'localhost'}:${ports.port} {
\tbind 127.0.0.1
\ttls ${dir}/certs/cert.pem ${dir}/certs/key.pem
\trespond "ok"
}
`,
  );
  const config = `--config ${caddyfile} --adapter caddyfile`;
  return {
    serverConfig: caddyfile,
    certPath: `${dir}/certs/cert.pem`,
    keyPath: `${dir}/certs/key.pem`,
    validateCommand: `caddy validate ${config}`,
    reloadCommand: `caddy reload ${config} --address 127.0.0.1:${ports.adminPort} --force`,
    start: () =>
      startServer('caddy', ['run', '--config', caddyfile, '--adapter', 'caddyfile'], caddyEnv(options.home)),
  };
}

/** HAProxy in master-worker mode: the master's pid stays, reload is USR2 to it (as systemd's is). */
export interface HaproxySite {
  serverConfig: string;
  /** The one PEM HAProxy serves: leaf, chain and key. */
  pemPath: string;
  validateCommand: string;
  reloadCommand(server: ServerProcess | undefined): string;
  start(): ServerProcess;
}

export function writeHaproxySite(dir: string, port: number): HaproxySite {
  mkdirSync(dir, { recursive: true });
  const cfg = join(dir, 'haproxy.cfg');
  const pemPath = join(dir, 'site.pem');
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
  bind 127.0.0.1:${port} ssl crt ${pemPath}
  http-request return status 200 content-type text/plain string ok
`,
  );
  return {
    serverConfig: cfg,
    pemPath,
    validateCommand: `haproxy -c -q -f ${cfg}`,
    reloadCommand: (server) => `kill -USR2 ${server?.child.pid ?? 0}`,
    start: () => startServer('haproxy', ['-W', '-db', '-f', cfg, '-p', join(dir, 'haproxy.pid')]),
  };
}

const POSTFIX_SERVICES = [
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

/**
 * A Postfix instance with its own config, queue and data directories (`postfix -c <conf>
 * start-fg`), smtpd on the port with STARTTLS. The daemons traverse `dir` as the postfix user, so
 * it is made 0755 (its parents are the caller's). Stopping it also runs `postfix stop`.
 */
export function writePostfixSite(dir: string, port: number, hostname: string): ServerSite {
  mkdirSync(dir, { recursive: true });
  chmodSync(dir, 0o755);
  for (const sub of ['conf', 'certs', 'queue', 'data']) mkdirSync(join(dir, sub));
  const postfixUid = Number(execFileSync('id', ['-u', 'postfix']).toString().trim());
  chownSync(join(dir, 'data'), postfixUid, userInfo().gid);
  const conf = join(dir, 'conf');
  writeFileSync(
    join(conf, 'main.cf'),
    `compatibility_level = 3.6
queue_directory = ${dir}/queue
data_directory = ${dir}/data
mail_owner = postfix
setgid_group = postdrop
inet_interfaces = 127.0.0.1
inet_protocols = ipv4
myhostname = ${hostname}
mydestination =
maillog_file_prefixes = ${dir}
maillog_file = ${dir}/maillog
smtpd_tls_security_level = may
smtpd_tls_cert_file = ${dir}/certs/cert.pem
smtpd_tls_key_file = ${dir}/certs/key.pem
`,
  );
  const services = [`127.0.0.1:${port} inet n - n - - smtpd`, ...POSTFIX_SERVICES];
  writeFileSync(join(conf, 'master.cf'), `${services.join('\n')}\n`);
  return {
    serverConfig: join(conf, 'main.cf'),
    certPath: `${dir}/certs/cert.pem`,
    keyPath: `${dir}/certs/key.pem`,
    validateCommand: `postfix -c ${conf} check`,
    reloadCommand: `postfix -c ${conf} reload`,
    start: () => {
      const server = startServer('postfix', ['-c', conf, 'start-fg']);
      return {
        ...server,
        stop: async () => {
          try {
            execFileSync('postfix', ['-c', conf, 'stop'], { stdio: 'ignore' });
          } catch {
            // not running
          }
          await server.stop();
        },
      };
    },
  };
}

/** Dovecot (IMAP with STARTTLS on the port) with its base_dir, state and log under `dir`. */
export function writeDovecotSite(dir: string, port: number): ServerSite {
  for (const sub of ['certs', 'run', 'state']) mkdirSync(join(dir, sub), { recursive: true });
  const conf = join(dir, 'dovecot.conf');
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
  return {
    serverConfig: conf,
    certPath: `${dir}/certs/cert.pem`,
    keyPath: `${dir}/certs/key.pem`,
    validateCommand: `doveconf -c ${conf} -n`,
    reloadCommand: `doveadm -c ${conf} reload`,
    start: () => startServer('dovecot', ['-F', '-c', conf]),
  };
}
