import { constants, createPrivateKey, KeyObject, privateEncrypt } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CertlaneError, ErrorCode, IssuerCaInfo } from '@certlane/contracts';
import { InProcessBus } from '@certlane/platform';
import {
  createSelfSignedCa,
  CrlIssuer,
  KeySpec,
  parseCrl,
  SoftwareKeyProvider,
  SoftwareSigner,
  toPem,
  verifyCrl,
} from '@certlane/pki';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { p256 } = require('@noble/curves/p256') as {
  p256: {
    sign(hash: Uint8Array, key: Uint8Array, opts: { prehash: boolean }): { toDERRawBytes(): Uint8Array };
  };
};
import { RemoteCaSigner } from './remote-ca-signer';

const DIGEST_INFO_PREFIX: Record<string, string> = {
  sha256: '3031300d060960864801650304020105000420',
};

/**
 * The signing half of issuance.v1.sign-digest as the local CA does it (sign the given digest,
 * never hash again): ECDSA P-256 through @noble/curves, RSA as PKCS#1 v1.5 over DigestInfo.
 */
function signDigest(key: KeyObject, algorithm: string, digest: Buffer): Buffer {
  if (algorithm === 'ecdsa-with-SHA256') {
    const d = Buffer.from(key.export({ format: 'jwk' }).d as string, 'base64url');
    return Buffer.from(p256.sign(digest, d, { prehash: false }).toDERRawBytes());
  }
  const info = Buffer.concat([Buffer.from(DIGEST_INFO_PREFIX.sha256, 'hex'), digest]);
  return privateEncrypt({ key, padding: constants.RSA_PKCS1_PADDING }, info);
}

async function localCa(spec: KeySpec) {
  const { signer, handle } = await new SoftwareKeyProvider().generate(spec);
  const now = Date.now();
  const root = await createSelfSignedCa({
    subject: [['CN', `Remote signer test CA ${spec.algorithm}`]],
    signer,
    notBefore: new Date(now - 60_000),
    notAfter: new Date(now + 86_400_000),
  });
  const key = createPrivateKey({ key: handle.reference as Buffer, format: 'der', type: 'pkcs8' });
  return { pem: toPem('CERTIFICATE', root.der), key, signer: signer as SoftwareSigner };
}

/** An in-process bus (the real dispatch and DTO validation) serving sign-digest with a real CA key. */
function busFor(key: KeyObject, algorithm: string, requests: unknown[]) {
  const bus = new InProcessBus({ requestTimeoutMs: 2000 });
  void bus.handle('issuance.v1.sign-digest', async (request) => {
    requests.push(request);
    return {
      signature_base64: signDigest(key, algorithm, Buffer.from(request.digest_base64, 'base64')).toString(
        'base64',
      ),
      signature_algorithm: algorithm,
    };
  });
  return bus;
}

function info(pem: string, algorithm: string): IssuerCaInfo {
  return {
    issuer_id: 'iss-test',
    kind: 'local_ca',
    capabilities: { crl: true, ocsp: true },
    ca_id: 'ca-test',
    ca_certificate_pem: pem,
    chain_pem: pem,
    signature_algorithm: algorithm,
    cas: [{ ca_id: 'ca-test', certificate_pem: pem, status: 'active', issuing: true }],
  };
}

describe(RemoteCaSigner.name, () => {
  const dir = mkdtempSync(join(tmpdir(), 'certlane-remote-signer-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each([
    ['ECDSA P-256', { algorithm: 'ECDSA', curve: 'P-256' } as KeySpec, 'ecdsa-with-SHA256'],
    ['RSA 2048', { algorithm: 'RSA', size: 2048 } as KeySpec, 'sha256WithRSAEncryption'],
  ])(
    'builds a %s CRL with libs/pki that verifies and that openssl accepts',
    async (label, spec, algorithm) => {
      const ca = await localCa(spec);
      const requests: unknown[] = [];
      const signer = new RemoteCaSigner(busFor(ca.key, algorithm, requests), info(ca.pem, algorithm));
      expect(signer.signatureAlgorithm.name).toBe(algorithm);
      expect(signer.publicKey.spki.equals(ca.signer.publicKey.spki)).toBe(true);

      const der = await new CrlIssuer({ certificate: ca.pem, signer }).build({
        crlNumber: 7n,
        thisUpdate: new Date(Math.floor(Date.now() / 1000) * 1000),
        entries: [
          { serialNumber: '4a11', revokedAt: new Date('2026-01-02T03:04:05Z'), reason: 'keyCompromise' },
        ],
      });

      expect(requests).toEqual([
        {
          issuer_id: 'iss-test',
          ca_id: 'ca-test',
          purpose: 'crl',
          digest_algorithm: 'sha256',
          digest_base64: expect.any(String),
        },
      ]);
      const crl = parseCrl(der);
      expect(verifyCrl(crl, ca.pem)).toBe(true);
      const crlFile = join(dir, `${label.replace(/\W/g, '')}.crl`);
      const caFile = join(dir, `${label.replace(/\W/g, '')}.pem`);
      writeFileSync(crlFile, der);
      writeFileSync(caFile, ca.pem);
      const openssl = spawnSync(
        'openssl',
        ['crl', '-inform', 'DER', '-in', crlFile, '-noout', '-text', '-CAfile', caFile],
        {
          encoding: 'utf8',
        },
      );
      expect(`${openssl.stdout}${openssl.stderr}`).toContain('verify OK');
      expect(openssl.stdout).toMatch(/CRL Number:\s+7/);
      expect(openssl.stdout).toMatch(/Serial Number: 4A11[\s\S]*Key Compromise/);
    },
  );

  it('fails the CRL when issuance signs with another key (the signature does not verify)', async () => {
    const ca = await localCa({ algorithm: 'ECDSA', curve: 'P-256' });
    const other = await localCa({ algorithm: 'ECDSA', curve: 'P-256' });
    const signer = new RemoteCaSigner(
      busFor(other.key, 'ecdsa-with-SHA256', []),
      info(ca.pem, 'ecdsa-with-SHA256'),
    );
    const der = await new CrlIssuer({ certificate: ca.pem, signer }).build({
      crlNumber: 1,
      thisUpdate: new Date(),
      entries: [],
    });
    expect(verifyCrl(parseCrl(der), ca.pem)).toBe(false);
  });

  it('refuses Ed25519 and unknown algorithms (501) and an algorithm that does not fit the key', async () => {
    const bus = new InProcessBus({ requestTimeoutMs: 1000 });
    const ed = await localCa({ algorithm: 'Ed25519' });
    const ec = await localCa({ algorithm: 'ECDSA', curve: 'P-256' });
    const codeOf = (f: () => unknown) => {
      try {
        f();
        return 'no error';
      } catch (error) {
        return (error as CertlaneError).code;
      }
    };
    expect(codeOf(() => new RemoteCaSigner(bus, info(ed.pem, 'Ed25519')))).toBe(ErrorCode.NotImplemented);
    expect(codeOf(() => new RemoteCaSigner(bus, info(ec.pem, 'md5WithRSA')))).toBe(ErrorCode.NotImplemented);
    expect(codeOf(() => new RemoteCaSigner(bus, info(ec.pem, 'sha256WithRSAEncryption')))).toBe(
      ErrorCode.Internal,
    );
  });

  it('refuses a signature of another algorithm than announced', async () => {
    const ca = await localCa({ algorithm: 'ECDSA', curve: 'P-256' });
    const bus = new InProcessBus({ requestTimeoutMs: 1000 });
    await bus.handle('issuance.v1.sign-digest', async () => ({
      signature_base64: 'AAAA',
      signature_algorithm: 'ecdsa-with-SHA384',
    }));
    const signer = new RemoteCaSigner(bus, info(ca.pem, 'ecdsa-with-SHA256'));
    await expect(signer.sign(Buffer.from('tbs'))).rejects.toThrow(/expected ecdsa-with-SHA256/);
  });
});
