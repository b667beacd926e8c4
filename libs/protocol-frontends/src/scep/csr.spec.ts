import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseCsr } from './csr';

const dir = mkdtempSync(join(tmpdir(), 'scep-csr-'));
function csr(key: string[], attrs: string, extensions = ''): Buffer {
  writeFileSync(
    join(dir, 'req.cnf'),
    `[req]\ndistinguished_name=dn\nattributes=a\nprompt=no\n${extensions ? 'req_extensions=e\n' : ''}[dn]\nCN=device.example.test\n[a]\n${attrs}\n${extensions ? `[e]\n${extensions}\n` : ''}`,
  );
  return execFileSync(
    'openssl',
    [
      'req',
      '-new',
      ...key,
      '-nodes',
      '-keyout',
      join(dir, 'k.pem'),
      '-config',
      join(dir, 'req.cnf'),
      '-outform',
      'DER',
    ],
    {
      stdio: ['ignore', 'pipe', 'ignore'],
    },
  );
}

describe('SCEP CSR reading (RFC 2986)', () => {
  it('reads the CN, the challengePassword, the DNS SANs and checks the signature (EC and RSA)', () => {
    const der = csr(
      ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256'],
      'challengePassword=secret-challenge-1',
      'subjectAltName=DNS:a.example.test,DNS:b.example.test,IP:10.0.0.1',
    );
    const parsed = parseCsr(der);
    expect(parsed).toMatchObject({
      signatureValid: true,
      commonNames: ['device.example.test'],
      challenge: 'secret-challenge-1',
      dnsNames: ['a.example.test', 'b.example.test'],
      sanCount: 3,
    });
    expect(parsed.pem).toMatch(
      /^-----BEGIN CERTIFICATE REQUEST-----\n[A-Za-z0-9+/=\n]+-----END CERTIFICATE REQUEST-----\n$/,
    );
    const rsa = parseCsr(csr(['-newkey', 'rsa:2048'], ''));
    expect([rsa.signatureValid, rsa.challenge]).toEqual([true, undefined]);
  });

  it('finds a tampered request invalid and refuses what is not a request', () => {
    const der = Buffer.from(csr(['-newkey', 'rsa:2048'], 'challengePassword=secret-challenge-2'));
    der[der.length - 5] ^= 0xff;
    expect(parseCsr(der).signatureValid).toBe(false);
    expect(() => parseCsr(Buffer.from('not a csr'))).toThrow();
  });
});
