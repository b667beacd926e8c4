import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { carriesPublicKeyOf, KeyStore } from './key-store';

describe('KeyStore.pruneBefore', () => {
  let dir: string;
  let keys: KeyStore;

  /** A stored key whose file was written `secondsAgo` (the store orders versions by that). */
  const stored = (name: string, secondsAgo: number) => {
    const path = keys.storeFetched('mc-1', name, `key of ${name}`);
    const at = Date.now() / 1000 - secondsAgo;
    utimesSync(path, at, at);
    return path;
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'certlane-keystore-'));
    keys = new KeyStore(dir);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps the deployed version and the newest older one, deletes the rest', () => {
    const v1 = stored('v1', 300);
    const v2 = stored('v2', 200);
    const v3 = stored('v3', 100);
    const v4 = stored('v4', 10);
    expect(keys.pruneBefore('mc-1', 'v4').sort()).toEqual(['v1', 'v2']);
    expect([v1, v2, v3, v4].map(existsSync)).toEqual([false, false, true, true]);
  });

  it('never deletes newer versions, keys of CSRs in flight, or other certificates', () => {
    const v1 = stored('v1', 300);
    const v2 = stored('v2', 200);
    const v3 = stored('v3', 100);
    const pending = stored('job-123', 400);
    const other = keys.storeFetched('mc-2', 'v0', 'key of another certificate');
    // A deployment pinned to v2 while v3 exists: v3 is newer and stays; v1 is the rollback key.
    expect(keys.pruneBefore('mc-1', 'v2')).toEqual([]);
    expect([v1, v2, v3, pending, other].map(existsSync)).toEqual([true, true, true, true, true]);
  });

  it('does nothing when the deployed version has no key on this agent', () => {
    const v1 = stored('v1', 300);
    const v2 = stored('v2', 200);
    expect(keys.pruneBefore('mc-1', 'v9')).toEqual([]);
    expect([v1, v2].map(existsSync)).toEqual([true, true]);
  });
});

describe('KeyStore.adoptJobKey (a CSR whose 202 was lost)', () => {
  let dir: string;
  let keys: KeyStore;
  /** A key and a self-signed certificate for it, made by openssl (as any issuer would carry the key). */
  const keyAndCertificate = (name: string) => {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:P-256',
        '-nodes',
        '-keyout',
        `${name}.key`,
        '-out',
        `${name}.crt`,
        '-subj',
        `/CN=${name}.example.com`,
        '-days',
        '2',
      ],
      { cwd: dir, stdio: 'ignore' },
    );
    return {
      key: readFileSync(join(dir, `${name}.key`), 'utf8'),
      leaf: readFileSync(join(dir, `${name}.crt`), 'utf8'),
    };
  };
  /** A key left under its job name, as generateForJob writes it. */
  const jobKey = (jobId: string, pem: string) => keys.storeFetched('web', `job-${jobId}`, pem);

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'certlane-keystore-adopt-'));
    keys = new KeyStore(join(dir, 'state'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('files the job key whose public key the certificate carries under the version', () => {
    const issued = keyAndCertificate('issued');
    const other = keyAndCertificate('other');
    jobKey('j-other', other.key);
    jobKey('j-issued', issued.key);
    expect(keys.adoptJobKey('web', 'ver-7', issued.leaf)).toBe('j-issued');
    expect(readdirSync(join(dir, 'state', 'keys', 'web')).sort()).toEqual([
      'job-j-other.key.pem',
      'ver-7.key.pem',
    ]);
    expect(keys.keyFor('web', 'ver-7', issued.leaf)).toBe(issued.key);
  });

  it('adopts nothing when no job key matches, when a job file is damaged, or without keys', () => {
    const issued = keyAndCertificate('issued');
    const other = keyAndCertificate('other');
    expect(keys.adoptJobKey('web', 'ver-7', issued.leaf)).toBeNull();
    jobKey('j-other', other.key);
    jobKey('j-broken', 'not a key');
    // A version key is never taken for another version, whatever it holds.
    keys.storeFetched('web', 'ver-6', issued.key);
    expect(keys.adoptJobKey('web', 'ver-7', issued.leaf)).toBeNull();
    expect(readdirSync(join(dir, 'state', 'keys', 'web')).sort()).toEqual([
      'job-j-broken.key.pem',
      'job-j-other.key.pem',
      'ver-6.key.pem',
    ]);
  });

  it('compares the SubjectPublicKeyInfo of the key and of the certificate', () => {
    const issued = keyAndCertificate('issued');
    const other = keyAndCertificate('other');
    expect(carriesPublicKeyOf(issued.key, issued.leaf)).toBe(true);
    expect(carriesPublicKeyOf(other.key, issued.leaf)).toBe(false);
    expect(
      carriesPublicKeyOf('-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n', issued.leaf),
    ).toBe(false);
  });
});
