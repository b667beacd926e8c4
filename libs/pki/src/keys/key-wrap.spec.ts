import { generateKeyPairSync, X509Certificate } from 'node:crypto';
import { CompactEncrypt, decodeProtectedHeader, exportJWK, generateKeyPair } from 'jose';
import { generateRecipientKey, unwrapPrivateKey, WRAP_ALG, WRAP_ENC, wrapPrivateKey } from './key-wrap';
import { SoftwareKeyProvider } from './key-provider';
import { createSelfSignedCa } from '../ca';
import { toPem } from '../pem';

const label = { certificateId: 'mc-web', versionId: 'ver-1' };
const pemOf = () =>
  generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({
    type: 'pkcs8',
    format: 'pem',
  }) as string;

describe('wrapPrivateKey and unwrapPrivateKey', () => {
  it('round-trips a PKCS#8 PEM through a compact JWE that holds no plaintext', async () => {
    const pem = pemOf();
    const recipient = await generateRecipientKey();
    const jwe = await wrapPrivateKey(pem, recipient.publicJwk, label);
    expect(jwe.split('.')).toHaveLength(5);
    expect(jwe).not.toContain('PRIVATE KEY');
    expect(Buffer.from(jwe.replace(/\./g, ''), 'base64url').toString('latin1')).not.toContain('PRIVATE KEY');
    expect(await unwrapPrivateKey(jwe, recipient.privateKey, label)).toBe(pem);
  });

  it('names the algorithms, the certificate and the version in the protected header', async () => {
    const recipient = await generateRecipientKey();
    const header = decodeProtectedHeader(await wrapPrivateKey(pemOf(), recipient.publicJwk, label));
    expect(header).toMatchObject({
      alg: WRAP_ALG,
      enc: WRAP_ENC,
      kid: 'mc-web/ver-1',
      certificate_id: 'mc-web',
      version_id: 'ver-1',
    });
    expect(header.epk).toMatchObject({ kty: 'EC', crv: 'P-256' });
    expect(header.epk).not.toHaveProperty('d');
  });

  it('gives the recipient only the public half of its ephemeral key', async () => {
    const { publicJwk } = await generateRecipientKey();
    expect(Object.keys(publicJwk).sort()).toEqual(['crv', 'kty', 'x', 'y']);
  });

  it('does not open with another recipient key', async () => {
    const recipient = await generateRecipientKey();
    const other = await generateRecipientKey();
    const jwe = await wrapPrivateKey(pemOf(), recipient.publicJwk, label);
    await expect(unwrapPrivateKey(jwe, other.privateKey, label)).rejects.toThrow();
  });

  it('refuses a JWE that names another certificate or version', async () => {
    const recipient = await generateRecipientKey();
    const jwe = await wrapPrivateKey(pemOf(), recipient.publicJwk, label);
    await expect(
      unwrapPrivateKey(jwe, recipient.privateKey, { certificateId: 'mc-web', versionId: 'ver-2' }),
    ).rejects.toThrow('names mc-web version ver-1, not mc-web version ver-2');
  });

  it('refuses a tampered protected header (the GCM tag covers it)', async () => {
    const recipient = await generateRecipientKey();
    const jwe = await wrapPrivateKey(pemOf(), recipient.publicJwk, label);
    const [header, ...rest] = jwe.split('.');
    const forged = JSON.parse(Buffer.from(header, 'base64url').toString('utf8')) as Record<string, unknown>;
    forged.version_id = 'ver-2';
    const tampered = [Buffer.from(JSON.stringify(forged)).toString('base64url'), ...rest].join('.');
    await expect(
      unwrapPrivateKey(tampered, recipient.privateKey, { certificateId: 'mc-web', versionId: 'ver-2' }),
    ).rejects.toThrow();
  });

  it('refuses other key management algorithms (dir / ECDH-ES without wrap)', async () => {
    const { privateKey, publicKey } = await generateKeyPair('ECDH-ES', { crv: 'P-256' });
    const jwe = await new CompactEncrypt(new TextEncoder().encode(pemOf()))
      .setProtectedHeader({ alg: 'ECDH-ES', enc: 'A256GCM', certificate_id: 'mc-web', version_id: 'ver-1' })
      .encrypt(publicKey);
    await expect(unwrapPrivateKey(jwe, privateKey as never, label)).rejects.toThrow(/not allowed/);
  });

  it('refuses a plaintext that is not a private key, without echoing it', async () => {
    const recipient = await generateRecipientKey();
    const jwe = await wrapPrivateKey('not a key at all', recipient.publicJwk, label);
    await expect(unwrapPrivateKey(jwe, recipient.privateKey, label)).rejects.toThrow(
      /^the wrapped key is not a private key$/,
    );
  });

  it('checks the key against the certificate when given one', async () => {
    const provider = new SoftwareKeyProvider();
    const { signer } = await provider.generate({ algorithm: 'ECDSA', curve: 'P-256' });
    const { signer: otherSigner } = await provider.generate({ algorithm: 'ECDSA', curve: 'P-256' });
    const issued = await createSelfSignedCa({
      subject: [['CN', 'wrap.example.com']],
      signer,
      notBefore: new Date(Date.now() - 60_000),
      notAfter: new Date(Date.now() + 86_400_000),
    });
    const leaf = toPem('CERTIFICATE', issued.der);
    expect(new X509Certificate(leaf).subject).toContain('wrap.example.com');
    const recipient = await generateRecipientKey();
    const toPemKey = (der: Buffer) => toPem('PRIVATE KEY', der);
    const right = await wrapPrivateKey(toPemKey(signer.exportPkcs8()), recipient.publicJwk, label);
    const wrong = await wrapPrivateKey(toPemKey(otherSigner.exportPkcs8()), recipient.publicJwk, label);
    await expect(unwrapPrivateKey(right, recipient.privateKey, label, leaf)).resolves.toContain(
      'PRIVATE KEY',
    );
    await expect(unwrapPrivateKey(wrong, recipient.privateKey, label, leaf)).rejects.toThrow(
      'does not match the certificate of mc-web version ver-1',
    );
  });

  it('refuses a recipient key that is not EC P-256', async () => {
    const { publicKey } = await generateKeyPair('ECDH-ES+A256KW', { crv: 'P-384' });
    await expect(wrapPrivateKey(pemOf(), await exportJWK(publicKey), label)).rejects.toThrow(
      'the recipient key must be an EC P-256 public key',
    );
  });
});
