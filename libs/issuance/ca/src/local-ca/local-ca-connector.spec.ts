import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CertlaneError, ErrorCode } from '@certlane/contracts';
import {
  createCsr,
  exportPem,
  parseCertificate,
  SoftwareKeyProvider,
  SoftwareSigner,
  verifyChain,
} from '@certlane/pki';
import { caSubject, createChild, createRoot, createSubCaRequest } from './ca-factory';
import { IssuingCa } from '../issuers/issuer-dependencies';
import { LocalCaConnector, LocalCaDependencies, revocationUrls } from './local-ca-connector';

const provider = new SoftwareKeyProvider();

async function caPair(rootAlgorithm: 'ECDSA-P256' | 'RSA-2048' = 'ECDSA-P256') {
  const root = await createRoot(provider, {
    subject: caSubject('Test Root', 'Certlane'),
    validityDays: 3650,
    keyAlgorithm: rootAlgorithm,
  });
  const rootSigner = SoftwareSigner.fromPrivateKey(root.pkcs8);
  const intermediate = await createChild(
    provider,
    { certificatePem: root.certificatePem!, signer: rootSigner },
    { subject: caSubject('Test Issuing'), validityDays: 1825, pathLength: 0 },
  );
  const issuing: IssuingCa = {
    id: 'ca-test-issuing',
    certificatePem: intermediate.certificatePem!,
    parentsPem: [root.certificatePem!],
    signer: SoftwareSigner.fromPrivateKey(intermediate.pkcs8),
  };
  return { root, intermediate, issuing };
}

function connector(issuing: IssuingCa | (() => never), extra: Partial<LocalCaDependencies> = {}) {
  const revoked: unknown[] = [];
  const instance = new LocalCaConnector({
    issuerId: 'iss-test',
    revocationBaseUrl: 'http://pki.example.com/',
    issuerScriptsDirectory: '/etc/certlane/issuer-scripts',
    outboundTls: { ca: [], rejectUnauthorized: true },
    acmeAccounts: {
      accountFor: () => Promise.reject(new Error('not needed')),
      registered: () => Promise.resolve(),
    },
    issuingCa: async () => (typeof issuing === 'function' ? issuing() : issuing),
    recordRevocations: async (requests) => {
      revoked.push(...requests);
    },
    issuedSerials: async (serials) => new Set(serials.filter((serial) => serial.startsWith('ab'))),
    ...extra,
  });
  return { instance, revoked };
}

async function leafCsr(names = ['app.example.com']) {
  const { signer } = await provider.generate({ algorithm: 'ECDSA', curve: 'P-256' });
  return (
    await createCsr({
      subject: [['CN', names[0]]],
      signer,
      subjectAltNames: names.map((value) => ({ type: 'dns' as const, value })),
    })
  ).pem;
}

describe(LocalCaConnector.name, () => {
  it('declares CRL and OCSP support', () => {
    const { instance } = connector(() => {
      throw new Error('unused');
    });
    expect(instance.kind).toBe('local_ca');
    expect(instance.capabilities).toMatchObject({ crl: true, ocsp: true, revoke: true, synchronous: true });
  });

  it('returns the PEMs exportPem writes, also for a chain stored with CRLF line ends (kept per chain)', async () => {
    const { issuing } = await caPair();
    const crlf = { ...issuing, parentsPem: issuing.parentsPem.map((pem) => pem.replace(/\n/g, '\r\n')) };
    for (const ca of [issuing, crlf, issuing]) {
      const issued = await connector(ca).instance.issue({
        csrPem: await leafCsr(),
        profile: {},
        idempotencyKey: '',
      });
      const expected = exportPem(parseCertificate(issued.certificatePem), [
        ca.certificatePem,
        ...ca.parentsPem,
      ]);
      expect(issued.certificatePem).toBe(expected.cert_pem);
      expect(issued.chainPem).toBe(expected.chain_pem);
      expect(issued.chainPem).not.toContain('\r');
    }
  });

  it('issues a leaf that chains to the root (pki and openssl) and carries CDP and OCSP AIA', async () => {
    const { root, issuing } = await caPair();
    const { instance } = connector(issuing);
    const issued = await instance.issue({
      csrPem: await leafCsr(['app.example.com', 'www.example.com']),
      profile: { validityDays: 30 },
      idempotencyKey: 'k1',
    });
    expect(issued.caId).toBe('ca-test-issuing');
    expect(issued.serialNumber).toMatch(/^[0-9a-f]+$/);
    expect(issued.notAfter.getTime() - issued.notBefore.getTime()).toBe(30 * 86_400_000);
    expect(issued.certificate.decoded.crlDistributionPoints).toEqual([
      'http://pki.example.com/crl/iss-test/ca-test-issuing.crl',
    ]);
    expect(issued.certificate.decoded.ocspUrls).toEqual(['http://pki.example.com/ocsp/iss-test']);
    expect(issued.certificate.decoded.subjectAltNames?.map((n) => n.value)).toEqual([
      'app.example.com',
      'www.example.com',
    ]);
    expect(
      verifyChain({
        certificate: issued.certificatePem,
        intermediates: [issuing.certificatePem],
        trustAnchors: [root.certificatePem!],
      }),
    ).toHaveLength(3);

    const dir = mkdtempSync(join(tmpdir(), 'localca-'));
    writeFileSync(join(dir, 'root.pem'), root.certificatePem!);
    writeFileSync(join(dir, 'chain.pem'), issued.chainPem);
    writeFileSync(join(dir, 'leaf.pem'), issued.certificatePem);
    const out = execFileSync(
      'openssl',
      [
        'verify',
        '-CAfile',
        join(dir, 'root.pem'),
        '-untrusted',
        join(dir, 'chain.pem'),
        join(dir, 'leaf.pem'),
      ],
      { encoding: 'utf8' },
    );
    expect(out.trim()).toBe(`${join(dir, 'leaf.pem')}: OK`);
  });

  it('refuses a weak or malformed CSR with csr_invalid naming the rule', async () => {
    const { issuing } = await caPair();
    const { instance } = connector(issuing);
    const weak = execFileSync(
      'openssl',
      ['req', '-new', '-newkey', 'rsa:1024', '-nodes', '-keyout', '/dev/null', '-subj', '/CN=weak'],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] },
    );
    await expect(instance.issue({ csrPem: weak, profile: {}, idempotencyKey: 'k' })).rejects.toMatchObject({
      code: ErrorCode.CsrInvalid,
      details: { rule: 'key_too_weak' },
    });
    await expect(
      instance.issue({ csrPem: 'not a csr', profile: {}, idempotencyKey: 'k' }),
    ).rejects.toMatchObject({ code: ErrorCode.CsrInvalid, details: { rule: 'pem_invalid' } });
  });

  it('refuses validity beyond the issuer maximum', async () => {
    const { issuing } = await caPair();
    const { instance } = connector(issuing, { maxValidityDays: 90 });
    await expect(
      instance.issue({ csrPem: await leafCsr(), profile: { validityDays: 91 }, idempotencyKey: 'k' }),
    ).rejects.toThrow("validity_days 91 exceeds the issuer's max_validity_days 90");
  });

  it('puts exactly the extended key usages it is given in the leaf, else serverAuth and clientAuth', async () => {
    const { issuing } = await caPair();
    const { instance } = connector(issuing);
    const ekus = async (extendedKeyUsage?: string[]) => {
      const issued = await instance.issue({
        csrPem: await leafCsr(),
        profile: extendedKeyUsage ? { extendedKeyUsage } : {},
        idempotencyKey: 'k',
      });
      return new X509Certificate(issued.certificatePem).keyUsage;
    };
    expect(await ekus(['clientAuth'])).toEqual(['1.3.6.1.5.5.7.3.2']);
    expect((await ekus())?.sort()).toEqual(['1.3.6.1.5.5.7.3.1', '1.3.6.1.5.5.7.3.2']);
  });

  it('keeps a leaf asked for no validity within the issuer maximum, not the 90-day leaf default', async () => {
    const { issuing } = await caPair();
    const { instance } = connector(issuing, { maxValidityDays: 30 });
    const issued = await instance.issue({ csrPem: await leafCsr(), profile: {}, idempotencyKey: 'k' });
    const leaf = parseCertificate(issued.certificatePem);
    expect((leaf.notAfter.getTime() - leaf.notBefore.getTime()) / 86_400_000).toBeCloseTo(30, 0);
  });

  it('passes through the refusal of a CA that is not active', async () => {
    const { instance } = connector(() => {
      throw new CertlaneError(ErrorCode.CaNotActive, 'CA ca-x is retired');
    });
    await expect(
      instance.issue({ csrPem: await leafCsr(), profile: {}, idempotencyKey: 'k' }),
    ).rejects.toMatchObject({ code: ErrorCode.CaNotActive });
    expect(await instance.testConnection()).toMatchObject({ ok: false, message: 'CA ca-x is retired' });
  });

  it('returns its chain, records revocations and tests its key', async () => {
    const { root, issuing } = await caPair('RSA-2048');
    const { instance, revoked } = connector(issuing);
    expect((await instance.getCaChain()).chainPem).toBe(issuing.certificatePem + root.certificatePem);
    await instance.revoke({ serialNumber: 'abcd', reason: 'keyCompromise', idempotencyKey: 'r' });
    expect(revoked).toEqual([{ serialNumber: 'abcd', reason: 'keyCompromise', idempotencyKey: 'r' }]);
    expect(await instance.unknownSerials(['abcd', 'ffee'])).toEqual(['ffee']);
    expect(await instance.testConnection()).toMatchObject({ ok: true });
  });

  it('makes a sub-CA CSR for an external root', async () => {
    const request = await createSubCaRequest(provider, { subject: caSubject('Sub', 'Org'), validityDays: 1 });
    expect(request.csrPem).toContain('BEGIN CERTIFICATE REQUEST');
    expect(request.subject).toBe('CN=Sub,O=Org');
    expect(request.certificatePem).toBeUndefined();
  });
});

describe(revocationUrls.name, () => {
  it('builds CDP (per signing CA) and OCSP (per issuer) URLs under the base, without a double slash', () => {
    expect(revocationUrls('https://localhost:8443/', 'iss-local', 'ca-local-issuing-1')).toEqual({
      crl: ['https://localhost:8443/crl/iss-local/ca-local-issuing-1.crl'],
      ocsp: ['https://localhost:8443/ocsp/iss-local'],
    });
  });

  it('puts the publication base (plain http) first and the https service second (ADR 0038)', () => {
    expect(
      revocationUrls('https://pki.example.com', 'iss-local', 'ca-1', 'http://crl.example.com/pki/'),
    ).toEqual({
      crl: [
        'http://crl.example.com/pki/crl/iss-local/ca-1.crl',
        'https://pki.example.com/crl/iss-local/ca-1.crl',
      ],
      ocsp: ['http://crl.example.com/pki/ocsp/iss-local', 'https://pki.example.com/ocsp/iss-local'],
    });
  });
});
