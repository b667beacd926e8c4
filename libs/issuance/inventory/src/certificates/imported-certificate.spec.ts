import {
  Certificate,
  CertificateAuthority,
  createSelfSignedCa,
  parseCertificate,
  SoftwareKeyProvider,
} from '@certlane/pki';
import { importedCommonName, importedIssuer, importedSans } from './imported-certificate';

const provider = new SoftwareKeyProvider();
const HOUR = 3_600_000;

async function selfSignedCa(name: string): Promise<{ certificate: Certificate; ca: CertificateAuthority }> {
  const { signer } = await provider.generate({ algorithm: 'ECDSA', curve: 'P-256' });
  const issued = await createSelfSignedCa({
    subject: [['CN', name]],
    signer,
    notBefore: new Date(Date.now() - HOUR),
    notAfter: new Date(Date.now() + 1000 * HOUR),
  });
  const certificate = parseCertificate(issued.der);
  return { certificate, ca: new CertificateAuthority({ certificate, signer }) };
}

async function leafOf(
  ca: CertificateAuthority,
  subject: [string, string][],
  subjectAltNames: { type: 'dns' | 'ip' | 'email' | 'uri'; value: string }[],
): Promise<Certificate> {
  const { signer } = await provider.generate({ algorithm: 'ECDSA', curve: 'P-256' });
  const issued = await ca.issue({
    publicKey: signer.publicKey,
    subject,
    subjectAltNames,
    notBefore: new Date(Date.now() - HOUR),
    notAfter: new Date(Date.now() + 100 * HOUR),
  });
  return parseCertificate(issued.der);
}

let local: { certificate: Certificate; ca: CertificateAuthority };
let other: { certificate: Certificate; ca: CertificateAuthority };
/** A CA outside Certlane with the very same name as the local one (only the signature tells them apart). */
let lookalike: { certificate: Certificate; ca: CertificateAuthority };
let held: { issuer_id: string; certificate: Certificate }[];

beforeAll(async () => {
  local = await selfSignedCa('Certlane Local CA');
  other = await selfSignedCa('Second Local CA');
  lookalike = await selfSignedCa('Certlane Local CA');
  held = [
    { issuer_id: 'iss-local', certificate: local.certificate },
    { issuer_id: 'iss-second', certificate: other.certificate },
  ];
});

describe('importedIssuer', () => {
  it('records a certificate a held CA signed under that CA issuer', async () => {
    const leaf = await leafOf(other.ca, [['CN', 'a.example.com']], []);
    expect(importedIssuer(leaf, held, undefined)).toBe('iss-second');
  });

  it('records a certificate no held CA signed under no issuer, even when its issuer DN matches one', async () => {
    const leaf = await leafOf(lookalike.ca, [['CN', 'b.example.com']], []);
    expect(leaf.issuer.der.equals(local.certificate.subject.der)).toBe(true);
    expect(importedIssuer(leaf, held, undefined)).toBeNull();
    expect(importedIssuer(leaf, held, '')).toBeNull();
  });

  it('keeps a requested issuer that holds no CA (a remote issuer to renew it)', async () => {
    const leaf = await leafOf(lookalike.ca, [['CN', 'c.example.com']], []);
    expect(importedIssuer(leaf, held, 'iss-acme')).toBe('iss-acme');
  });

  it('refuses a requested CA-holding issuer that did not sign the certificate', async () => {
    const leaf = await leafOf(lookalike.ca, [['CN', 'd.example.com']], []);
    expect(() => importedIssuer(leaf, held, 'iss-local')).toThrow(
      expect.objectContaining({ code: 'validation_failed', details: { field: 'issuer_id' } }),
    );
    const signed = await leafOf(local.ca, [['CN', 'd.example.com']], []);
    expect(importedIssuer(signed, held, 'iss-local')).toBe('iss-local');
  });
});

describe('importedSans and importedCommonName', () => {
  it('take the subject common name and every DNS, IP, e-mail and URI name from the certificate', async () => {
    const leaf = await leafOf(
      local.ca,
      [['CN', 'web.example.com']],
      [
        { type: 'dns', value: 'web.example.com' },
        { type: 'dns', value: 'www.example.com' },
        { type: 'ip', value: '192.0.2.7' },
        { type: 'email', value: 'ops@example.com' },
        { type: 'uri', value: 'spiffe://example.com/web' },
      ],
    );
    expect(importedSans(leaf)).toEqual([
      'web.example.com',
      'www.example.com',
      '192.0.2.7',
      'ops@example.com',
      'spiffe://example.com/web',
    ]);
    expect(importedCommonName(leaf, 'what the request said')).toBe('web.example.com');
  });

  it('fall back to the requested name, then the first subjectAltName, for a subject without a CN', async () => {
    const leaf = await leafOf(local.ca, [['O', 'Example']], [{ type: 'dns', value: 'san-only.example.com' }]);
    expect(importedCommonName(leaf, 'given.example.com')).toBe('given.example.com');
    expect(importedCommonName(leaf, undefined)).toBe('san-only.example.com');
  });
});
