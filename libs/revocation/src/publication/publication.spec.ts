import { mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CertId, createOcspRequest, encodeOcspGetPath } from '@certlane/pki';
import { DirectoryPublicationStore } from './publication-store';
import { crlKey, ocspKey } from './published-keys';

const certId = (der: Buffer): CertId =>
  ({ der, hash: 'sha1', hashAlgorithmOid: '1.3.14.3.2.26' }) as unknown as CertId;

describe('published keys', () => {
  it('names a CRL by the path of its https URL', () => {
    expect(crlKey('iss-local', 'ca-1')).toBe('crl/iss-local/ca-1.crl');
  });

  it('names an OCSP response by the decoded RFC 5019 GET path, slash runs collapsed', () => {
    // A CertID whose request's base64 holds '//' ('?' bytes are 0x3f: '/' in base64).
    const id = certId(Buffer.from([0x04, 0x06, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00]));
    const base64 = createOcspRequest([id]).toString('base64');
    expect(base64).toContain('//');
    const key = ocspKey('iss-local', id)!;
    expect(key).toBe(`ocsp/iss-local/${base64.replace(/\/+/g, '/')}`);
    // What nginx looks up for the GET path a client sends: the percent-decoded path.
    expect(decodeURIComponent(encodeOcspGetPath(createOcspRequest([id])))).toBe(base64);
  });

  it('has no key for a request whose base64 ends with a slash (a directory, not a file)', () => {
    const endsWithSlash = [...Array(256).keys()]
      .map((b) => certId(Buffer.from([0x04, 0x02, 0x00, b])))
      .find((id) => createOcspRequest([id]).toString('base64').endsWith('/'));
    expect(endsWithSlash).toBeDefined();
    expect(ocspKey('iss-local', endsWithSlash!)).toBeUndefined();
  });
});

describe('DirectoryPublicationStore', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'certlane-publish-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('writes beside and renames: the file holds the new bytes and no temporary file is left', async () => {
    const store = new DirectoryPublicationStore(dir);
    await store.put('crl/iss/ca-1.crl', Buffer.from('first'));
    await store.put('crl/iss/ca-1.crl', Buffer.from('second'));
    expect(readFileSync(join(dir, 'crl/iss/ca-1.crl'), 'utf8')).toBe('second');
    expect(readdirSync(join(dir, 'crl/iss'))).toEqual(['ca-1.crl']);
  });

  it('refuses keys that would leave the directory', async () => {
    const store = new DirectoryPublicationStore(dir);
    for (const key of ['../x', 'crl/../../x', 'crl//x', '/x', 'crl/.hidden']) {
      await expect(store.put(key, Buffer.from('x'))).rejects.toThrow(/unsafe publication key/);
    }
  });

  it('removes the files under a prefix written before a time, and only those', async () => {
    const store = new DirectoryPublicationStore(dir);
    await store.put('ocsp/iss/MEw/old', Buffer.from('old'));
    await store.put('ocsp/iss/MEw/new', Buffer.from('new'));
    await store.put('crl/iss/ca-1.crl', Buffer.from('crl'));
    const hourAgo = new Date(Date.now() - 3600_000);
    utimesSync(join(dir, 'ocsp/iss/MEw/old'), hourAgo, hourAgo);
    utimesSync(join(dir, 'crl/iss/ca-1.crl'), hourAgo, hourAgo);
    expect(await store.removeWrittenBefore('ocsp', new Date(Date.now() - 60_000))).toBe(1);
    expect(readdirSync(join(dir, 'ocsp/iss/MEw'))).toEqual(['new']);
    expect(readFileSync(join(dir, 'crl/iss/ca-1.crl'), 'utf8')).toBe('crl');
  });
});
