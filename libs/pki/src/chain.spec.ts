import { intermediateCaTemplate } from './ca';
import { CertificateAuthority, issuerParts, signTbs } from './certificate-builder';
import { Certificate, parseCertificate, parseCertificates } from './certificate';
import { buildChain, verifyChain } from './chain';
import { PkiError } from './errors';
import { exportPem } from './pem-export';
import { TestPki, createTestPki, provider } from './testing/fixtures';
import { KEY_ARGS, OpenSslWorkspace } from './testing/openssl';
import { parseCsr } from './csr';
import { templateFromCsr } from './profile';

let ws: OpenSslWorkspace;
let pki: TestPki;
let leaf: Certificate;

beforeAll(async () => {
  ws = new OpenSslWorkspace();
  pki = await createTestPki();
  const { csrPem } = ws.csr('leaf', [...KEY_ARGS['P-256']], '/CN=chain.example.test');
  leaf = parseCertificate((await pki.ca.issue(templateFromCsr(parseCsr(csrPem)))).der);
});
afterAll(() => ws.remove());

function failure(fn: () => unknown): { code?: string; reason?: unknown } {
  try {
    fn();
  } catch (error) {
    if (error instanceof PkiError) return { code: error.code, reason: error.details?.reason };
    throw error;
  }
  return {};
}

describe(verifyChain.name, () => {
  it('returns leaf, intermediate, root for a valid chain', () => {
    const path = verifyChain({
      certificate: leaf,
      intermediates: [pki.intermediate],
      trustAnchors: [pki.root],
    });
    expect(path.map((c) => c.subject.commonName)).toEqual([
      'chain.example.test',
      'Test Issuing CA ECDSA',
      'Test Root ECDSA',
    ]);
  });

  it('accepts the intermediate as the trust anchor', () => {
    expect(verifyChain({ certificate: leaf, trustAnchors: [pki.intermediate] })).toHaveLength(2);
  });

  it('reports chain_incomplete without the intermediate', () => {
    expect(failure(() => verifyChain({ certificate: leaf, trustAnchors: [pki.root] })).code).toBe(
      'chain_incomplete',
    );
  });

  it('reports chain_incomplete for a root that is not trusted', async () => {
    const other = await createTestPki();
    expect(
      failure(() =>
        verifyChain({ certificate: leaf, intermediates: [pki.intermediate], trustAnchors: [other.root] }),
      ).code,
    ).toBe('chain_incomplete');
  });

  it('reports an expired or not yet valid chain as chain_invalid', () => {
    const late = new Date(leaf.notAfter.getTime() + 1000);
    expect(
      failure(() =>
        verifyChain({
          certificate: leaf,
          intermediates: [pki.intermediate],
          trustAnchors: [pki.root],
          at: late,
        }),
      ),
    ).toEqual({
      code: 'chain_invalid',
      reason: 'expired',
    });
    const early = new Date(leaf.notBefore.getTime() - 1000);
    expect(
      failure(() =>
        verifyChain({
          certificate: leaf,
          intermediates: [pki.intermediate],
          trustAnchors: [pki.root],
          at: early,
        }),
      ),
    ).toEqual({
      code: 'chain_invalid',
      reason: 'not_yet_valid',
    });
  });

  it('reports a forged signature (same issuer name, other key) as chain_invalid', async () => {
    const { signer } = await provider.generate({ algorithm: 'ECDSA', curve: 'P-256' });
    // A CA certificate with the same subject as the real intermediate but another key.
    const impostor = parseCertificate(
      (
        await pki.rootCa.issue(
          intermediateCaTemplate({
            subject: pki.intermediate.subject.der,
            publicKey: signer.publicKey,
            notBefore: pki.intermediate.notBefore,
            notAfter: pki.intermediate.notAfter,
          }),
        )
      ).der,
    );
    const forger = new CertificateAuthority({ certificate: impostor, signer });
    const forged = parseCertificate(
      (await forger.issue({ ...templateFromCsr(parseCsr(ws.readText('leaf.csr'))) })).der,
    );
    // Forged leaf, real intermediate: the names match, the signature does not.
    const withoutKeyIds = { ...forged, decoded: { ...forged.decoded, authorityKeyIdentifier: undefined } };
    expect(
      failure(() =>
        verifyChain({
          certificate: withoutKeyIds,
          intermediates: [pki.intermediate],
          trustAnchors: [pki.root],
        }),
      ),
    ).toEqual({
      code: 'chain_invalid',
      reason: 'signature',
    });
  });

  it('refuses a leaf used as an issuer (not_a_ca)', async () => {
    const { signer } = await provider.generate({ algorithm: 'ECDSA', curve: 'P-256' });
    const fakeCa = parseCertificate(
      (
        await pki.ca.issue({
          publicKey: signer.publicKey,
          subject: [['CN', 'Not A CA']],
          notBefore: new Date(Date.now() - 1000),
          notAfter: new Date(Date.now() + 86_400_000),
          keyUsage: ['digitalSignature', 'keyCertSign'],
        })
      ).der,
    );
    // Sign a certificate with the non-CA key, going around CertificateAuthority's own CA check.
    const parts = issuerParts(fakeCa.subject.der, signer, fakeCa.decoded.subjectKeyIdentifier, {});
    const child = parseCertificate(
      (
        await signTbs(parts, signer, {
          publicKey: pki.root.publicKey,
          subject: [['CN', 'child']],
          notBefore: new Date(Date.now() - 1000),
          notAfter: new Date(Date.now() + 3600_000),
        })
      ).der,
    );
    expect(
      failure(() =>
        verifyChain({
          certificate: child,
          intermediates: [fakeCa, pki.intermediate],
          trustAnchors: [pki.root],
        }),
      ),
    ).toEqual({
      code: 'chain_invalid',
      reason: 'not_a_ca',
    });
  });

  it('enforces pathLenConstraint (the intermediate has pathlen 0)', async () => {
    const { signer } = await provider.generate({ algorithm: 'ECDSA', curve: 'P-256' });
    const subCa = parseCertificate(
      (
        await pki.ca.issue(
          intermediateCaTemplate({
            subject: [['CN', 'Too Deep CA']],
            publicKey: signer.publicKey,
            notBefore: new Date(Date.now() - 1000),
            notAfter: new Date(Date.now() + 86_400_000),
          }),
        )
      ).der,
    );
    const deep = new CertificateAuthority({ certificate: subCa, signer });
    const deepLeaf = parseCertificate(
      (await deep.issue(templateFromCsr(parseCsr(ws.readText('leaf.csr'))))).der,
    );
    expect(
      failure(() =>
        verifyChain({
          certificate: deepLeaf,
          intermediates: [subCa, pki.intermediate],
          trustAnchors: [pki.root],
        }),
      ),
    ).toEqual({ code: 'chain_invalid', reason: 'path_length' });
    // openssl agrees.
    const pems = exportPem(deepLeaf, [subCa, pki.intermediate]);
    ws.write('deep.pem', pems.cert_pem);
    ws.write('deep-chain.pem', pems.chain_pem);
    ws.write('root.pem', exportPem(pki.root).cert_pem);
    expect(
      ws.run(['verify', '-CAfile', 'root.pem', '-untrusted', 'deep-chain.pem', 'deep.pem']).output,
    ).toMatch(/path length constraint exceeded/);
  });
});

describe(buildChain.name, () => {
  it('orders a shuffled bundle from the leaf up to the root', async () => {
    const unrelated = (await createTestPki()).intermediate;
    const chain = buildChain(leaf, [pki.root, unrelated, pki.intermediate]);
    expect(chain.map((c) => c.fingerprintSha256)).toEqual(
      [leaf, pki.intermediate, pki.root].map((c) => c.fingerprintSha256),
    );
  });

  it('stops where the pool ends', () => {
    expect(buildChain(leaf, [])).toHaveLength(1);
  });
});

describe(exportPem.name, () => {
  it('returns cert_pem, chain_pem and full_pem that openssl reads back', () => {
    const out = exportPem(leaf.der, [pki.intermediate.der, pki.root.der]);
    expect(out.full_pem).toBe(out.cert_pem + out.chain_pem);
    expect(parseCertificates(out.full_pem).map((c) => c.fingerprintSha256)).toEqual(
      [leaf, pki.intermediate, pki.root].map((c) => c.fingerprintSha256),
    );
    ws.write('export-cert.pem', out.cert_pem);
    ws.write('export-chain.pem', out.chain_pem);
    expect(ws.run(['verify', '-CAfile', 'export-chain.pem', 'export-cert.pem']).status).toBe(0);
  });

  it('fails with a PkiError (for a 422) when the stored PEM does not parse', () => {
    const broken = exportPem(leaf).cert_pem.replace(/[A-Za-z]{10}\n/, 'AAAA\n');
    expect(failure(() => exportPem(broken)).code).toMatch(/^(pem_invalid|der_invalid|der_truncated)$/);
    expect(failure(() => exportPem('not pem at all')).code).toBe('pem_invalid');
  });
});
