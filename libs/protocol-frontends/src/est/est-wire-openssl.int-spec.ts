import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { X509Certificate } from 'node:crypto';
import { base64Body, certsOnly, csrAttrs, decodeCsrBody } from '@certlane/protocol-frontends-domain';

const openssl = (args: string[], input?: string | Buffer): string =>
  execFileSync('openssl', args, { input, encoding: 'utf8', stdio: ['pipe', 'pipe', 'ignore'] });

/**
 * The EST wire formats (ADR 0058) against the openssl CLI, the RFC 7030 appendix client: CSRs
 * openssl writes are read in every body form, and what we answer openssl reads back.
 */
describe('EST wire formats with openssl', () => {
  const dir = mkdtempSync(join(tmpdir(), 'est-wire-'));
  const path = (name: string) => join(dir, name);

  function ca(name: string): Buffer {
    openssl([
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      path(`${name}.key`),
      '-out',
      path(`${name}.crt`),
      '-days',
      '2',
      '-subj',
      `/CN=${name}`,
    ]);
    return Buffer.from(new X509Certificate(readFileSync(path(`${name}.crt`))).raw);
  }

  it('RFC 7030 4.2.1: reads an openssl req CSR as PEM, base64 DER and CRLF base64', () => {
    openssl([
      'req',
      '-new',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      path('device.key'),
      '-out',
      path('device.csr'),
      '-subj',
      '/CN=device.example',
    ]);
    const pem = readFileSync(path('device.csr'), 'utf8');
    const der = execFileSync('openssl', ['req', '-in', path('device.csr'), '-outform', 'DER']);
    const forms = [
      pem,
      pem.replace(/\n/g, '\r\n'),
      der.toString('base64'),
      base64Body(der),
      base64Body(der).replace(/\r/g, '') + '\n\n',
    ];
    for (const body of forms) {
      const decoded = decodeCsrBody(body);
      expect(decoded.ok && decoded.der.equals(der)).toBe(true);
    }
    // ...and what it decoded is the request openssl signed.
    writeFileSync(path('decoded.der'), (decodeCsrBody(pem) as { der: Buffer }).der);
    expect(
      openssl(['req', '-inform', 'DER', '-in', path('decoded.der'), '-verify', '-noout', '-subject']),
    ).toContain('CN = device.example');
  });

  it('RFC 7030 4.1.3: openssl pkcs7 -print_certs reads our certs-only answer, base64 as sent', () => {
    const root = ca('est-root');
    const issuing = ca('est-issuing');
    const body = base64Body(certsOnly([issuing, root]));
    writeFileSync(path('cacerts.b64'), body);
    const der = openssl(['base64', '-d', '-in', path('cacerts.b64'), '-out', path('cacerts.p7')]);
    expect(der).toBe('');
    const printed = openssl(['pkcs7', '-inform', 'DER', '-in', path('cacerts.p7'), '-print_certs', '-noout']);
    expect(printed.match(/subject=.*/g)).toEqual(['subject=CN = est-issuing', 'subject=CN = est-root']);
  });

  it('RFC 7030 4.5.2: openssl asn1parse reads csrattrs as a SEQUENCE of OIDs', () => {
    writeFileSync(path('csrattrs.der'), csrAttrs(['commonName', 'challengePassword', 'extensionRequest']));
    const parsed = openssl(['asn1parse', '-inform', 'DER', '-in', path('csrattrs.der')]);
    expect(parsed.match(/OBJECT\s+:.*/g)?.map((line) => line.replace(/^OBJECT\s+:/, '').trim())).toEqual([
      'commonName',
      'challengePassword',
      'Extension Request',
    ]);
  });
});
