import { X509Certificate } from 'node:crypto';
import {
  createCsr,
  parseCertificate,
  parseCsr,
  SoftwareKeyProvider,
  SoftwareSigner,
  templateFromCsr,
} from '@certlane/pki';
import { caSubject, createRoot } from './ca-factory';
import { CaKeyCache, CaKeyRow } from './ca-key-cache';

const provider = new SoftwareKeyProvider();
const urls = { crl: ['https://pki.example.com/crl/iss.crl'], ocsp: ['https://pki.example.com/ocsp/iss'] };

async function setup() {
  const root = await createRoot(provider, { subject: caSubject('Cache Root'), validityDays: 365 });
  const row: CaKeyRow = { id: 'ca-1', key_provider: 'software', private_key_sealed: 'sealed-a' };
  const loads: string[] = [];
  let fail = false;
  const cache = new CaKeyCache(async (ca) => {
    loads.push(`${ca.id}/${ca.private_key_sealed}`);
    if (fail) throw new Error('cannot open');
    return SoftwareSigner.fromPrivateKey(root.pkcs8);
  });
  return { root, row, loads, cache, failNext: (value: boolean) => (fail = value) };
}

describe(CaKeyCache.name, () => {
  it('unseals a CA key once and returns the same signer while the row is unchanged', async () => {
    const { row, loads, cache } = await setup();
    const [a, b] = await Promise.all([cache.signer(row), cache.signer({ ...row })]);
    expect(a).toBe(b);
    expect(await cache.signer(row)).toBe(a);
    expect(loads).toEqual(['ca-1/sealed-a']);
  });

  it('loads again when the sealed reference or the provider changed, and after drop (retirement)', async () => {
    const { row, loads, cache } = await setup();
    const first = await cache.signer(row);
    const resealed = await cache.signer({ ...row, private_key_sealed: 'sealed-b' });
    expect(resealed).not.toBe(first);
    await cache.signer({ ...row, private_key_sealed: 'sealed-b', key_provider: 'pkcs11' });
    cache.drop(row.id);
    expect(cache.size).toBe(0);
    await cache.signer(row);
    expect(loads).toEqual(['ca-1/sealed-a', 'ca-1/sealed-b', 'ca-1/sealed-b', 'ca-1/sealed-a']);
  });

  it('does not keep a failed load: the next call tries again', async () => {
    const { row, loads, cache, failNext } = await setup();
    failNext(true);
    await expect(cache.signer(row)).rejects.toThrow('cannot open');
    expect(cache.size).toBe(0);
    failNext(false);
    await expect(cache.signer(row)).resolves.toBeDefined();
    expect(loads).toHaveLength(2);
  });

  it('builds one issuing authority per certificate and URLs, whose certificates verify', async () => {
    const { root, row, cache } = await setup();
    const pem = root.certificatePem!;
    const a = await cache.authority(row, pem, urls);
    expect(await cache.authority(row, pem, { ...urls })).toBe(a);
    const other = await cache.authority(row, pem, { ...urls, ocsp: ['https://other.example.com/ocsp'] });
    expect(other).not.toBe(a);

    const { signer } = await provider.generate({ algorithm: 'ECDSA', curve: 'P-256' });
    const csr = parseCsr(
      (
        await createCsr({
          subject: [['CN', 'leaf.example.com']],
          signer,
          subjectAltNames: [{ type: 'dns', value: 'leaf.example.com' }],
        })
      ).pem,
    );
    const issued = await a.issue(templateFromCsr(csr, { validityDays: 30 }));
    const leaf = parseCertificate(issued.der);
    const ca = parseCertificate(pem);
    expect(leaf.issuer.text).toBe(ca.subject.text);
    expect(new X509Certificate(issued.der).verify(new X509Certificate(pem).publicKey)).toBe(true);
    cache.drop(row.id);
    expect(await cache.authority(row, pem, urls)).not.toBe(a);
  });

  it('loads the parents of a CA certificate once, and again after a failure', async () => {
    const { row, cache } = await setup();
    let calls = 0;
    const load = async () => {
      calls++;
      if (calls === 1) throw new Error('db down');
      return ['PARENT PEM'];
    };
    await expect(cache.parents(row, 'CERT', load)).rejects.toThrow('db down');
    expect(await cache.parents(row, 'CERT', load)).toEqual(['PARENT PEM']);
    expect(await cache.parents(row, 'CERT', load)).toEqual(['PARENT PEM']);
    expect(calls).toBe(2);
  });
});
