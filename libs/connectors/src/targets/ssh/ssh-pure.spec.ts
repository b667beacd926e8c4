import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TargetConfigError } from '../config-schema';
import { hostKeyDecision, openSshFingerprint } from './host-key';
import { remoteCommandLine } from './remote-command';
import { sshSettings } from './ssh-settings';

/** The host key blob of an OpenSSH public key line (`type base64 comment`). */
const blobOf = (publicKeyLine: string) => Buffer.from(publicKeyLine.split(' ')[1], 'base64');

describe('SSH host key fingerprints', () => {
  let dir: string;
  let blob: Buffer;
  let expected: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'certlane-hostkey-'));
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(dir, 'k')]);
    blob = blobOf(readFileSync(join(dir, 'k.pub'), 'utf8'));
    // What OpenSSH itself prints, so the format is not checked against our own code.
    expected = /SHA256:\S+/.exec(
      execFileSync('ssh-keygen', ['-l', '-E', 'sha256', '-f', join(dir, 'k.pub')]).toString(),
    )![0];
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('formats like ssh-keygen -l: SHA256: and unpadded base64', () => {
    expect(openSshFingerprint(blob)).toBe(expected);
    expect(openSshFingerprint(blob)).toMatch(/^SHA256:[A-Za-z0-9+/]{43}$/);
  });

  it('accepts only the pinned key (with or without base64 padding)', () => {
    expect(hostKeyDecision(expected, blob)).toEqual({ accept: true, fingerprint: expected });
    expect(hostKeyDecision(`${expected}=`, blob).accept).toBe(true);
    expect(hostKeyDecision(` ${expected} `, blob).accept).toBe(true);
  });

  it('refuses another key, naming both fingerprints', () => {
    const other = `SHA256:${'B'.repeat(43)}`;
    expect(hostKeyDecision(other, blob)).toEqual({
      accept: false,
      fingerprint: expected,
      reason: `host key mismatch: the server presents ${expected}, the target pins ${other}`,
    });
  });

  it('refuses without a pin (no trust on first use) and with a pin that is not a fingerprint', () => {
    for (const pin of [undefined, null, '', '   ', 42]) {
      expect(hostKeyDecision(pin, blob)).toMatchObject({
        accept: false,
        reason: `no host_key_fingerprint is pinned; the server presents ${expected}`,
      });
    }
    for (const pin of ['MD5:aa:bb', expected.slice(7), `sha256:${expected.slice(7)}`, `${expected}x`]) {
      expect(hostKeyDecision(pin, blob)).toMatchObject({
        accept: false,
        reason: 'host_key_fingerprint is not an OpenSSH SHA256 fingerprint (SHA256:<base64>)',
      });
    }
  });
});

describe('remote command lines', () => {
  it('are the checked argv joined with single spaces', () => {
    expect(remoteCommandLine('systemctl   reload  nginx')).toBe('systemctl reload nginx');
    expect(remoteCommandLine(' /usr/sbin/nginx -t ')).toBe('/usr/sbin/nginx -t');
  });

  it('refuse anything a shell would interpret, without echoing the command', () => {
    for (const command of [
      'nginx -s reload; rm -rf /',
      'echo $HOME',
      'a && b',
      'x > /etc/passwd',
      "it's",
      'a\nb',
      '',
    ]) {
      expect(() => remoteCommandLine(command)).toThrow(/^command refused \((shell metacharacter|empty)\)$/);
    }
  });
});

describe('ssh target settings', () => {
  const base = {
    host: 'web1.example.com',
    username: 'deploy',
    auth_method: 'key',
    private_key: '-----BEGIN OPENSSH PRIVATE KEY-----\nx\n-----END OPENSSH PRIVATE KEY-----\n',
    host_key_fingerprint: `SHA256:${'C'.repeat(43)}`,
    cert_path: '/etc/ssl/web.pem',
    key_path: '/etc/ssl/web.key',
    reload_command: 'systemctl reload nginx',
  };
  const fieldsOf = (config: Record<string, unknown>) => {
    try {
      sshSettings(config);
      return [];
    } catch (error) {
      return (error as TargetConfigError).fields;
    }
  };

  it('splits the connection from the PEM file keys; port 22 by default', () => {
    const settings = sshSettings(base);
    expect(settings.connect).toEqual({
      host: 'web1.example.com',
      port: 22,
      username: 'deploy',
      hostKeyFingerprint: base.host_key_fingerprint,
      privateKey: base.private_key,
    });
    expect(settings.files).toEqual({
      cert_path: base.cert_path,
      key_path: base.key_path,
      reload_command: base.reload_command,
    });
    expect(sshSettings({ ...base, port: 2222 }).connect.port).toBe(2222);
    expect(sshSettings({ ...base, port: '2200' }).connect.port).toBe(2200);
  });

  it('uses only the secret of the chosen auth method', () => {
    const connect = sshSettings({ ...base, auth_method: 'password', password: 'pw' }).connect;
    expect(connect.password).toBe('pw');
    expect(connect).not.toHaveProperty('privateKey');
  });

  it('names the bad keys, never their values', () => {
    expect(fieldsOf({ ...base, private_key: undefined })).toEqual(['private_key']);
    expect(fieldsOf({ ...base, auth_method: 'password' })).toEqual(['password']);
    expect(fieldsOf({ ...base, auth_method: 'agent' })).toEqual(['auth_method']);
    expect(fieldsOf({ ...base, port: 0 })).toEqual(['port']);
    expect(fieldsOf({ ...base, port: 70000 })).toEqual(['port']);
    expect(fieldsOf({ ...base, host: '' })).toEqual(['host']);
    expect(fieldsOf({ ...base, host_key_fingerprint: '' })).toEqual(['host_key_fingerprint']);
    expect(fieldsOf({ ...base, key_path: 'relative.key', colour: 'blue' })).toEqual(['colour', 'key_path']);
    try {
      sshSettings({ ...base, auth_method: 'password', password: 1 });
    } catch (error) {
      expect((error as Error).message).not.toContain(base.private_key);
    }
  });
});
