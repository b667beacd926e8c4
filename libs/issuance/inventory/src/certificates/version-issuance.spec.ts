import { IssueCertificateRequest, IssuedCertificateDto } from '@certlane/contracts';
import { createCsr, parseCertificate, SoftwareKeyProvider } from '@certlane/pki';
import { EntityManager } from 'typeorm';
import { JobRow } from '../jobs/job.repository';
import { caSubject, createRoot, LocalCaService, SignedCertificate } from '@certlane/issuance-ca';
import { CertificateKeySealer } from './certificate-keys';
import { CertificateRepository, CertificateRow, NewVersion } from './certificate.repository';
import { StatusTransitions } from './status-transitions';
import { VersionIssuance } from './version-issuance';

const certificate = { id: 'cert-1', issuer_id: 'iss-local' } as CertificateRow;
const job = { id: 'job-1' } as JobRow;
const manager = { name: 'the caller transaction' } as unknown as EntityManager;

async function signedCertificate(): Promise<SignedCertificate> {
  const root = await createRoot(new SoftwareKeyProvider(), {
    subject: caSubject('Version Issuance Test'),
    validityDays: 30,
  });
  const pem = root.certificatePem as string;
  return {
    certificate: {
      issuer_id: 'iss-local',
      ca_id: 'ca-1',
      certificate_pem: pem,
      chain_pem: '',
      full_pem: pem,
    } as IssuedCertificateDto,
    record: {} as SignedCertificate['record'],
  };
}

/** The use case over recording fakes: what each collaborator was asked, in order. */
function useCase(signed: SignedCertificate) {
  const calls: string[] = [];
  const signRequests: IssueCertificateRequest[] = [];
  const versions: NewVersion[] = [];
  const keys: unknown[][] = [];
  const localCa = {
    sign: async (request: IssueCertificateRequest) => {
      signRequests.push(request);
      return signed;
    },
    recordIssued: async (within: EntityManager, recorded: SignedCertificate) => {
      calls.push(`recordIssued ${within === manager} ${recorded === signed}`);
    },
  } as unknown as LocalCaService;
  const transitions = {
    storeVersion: async (within: EntityManager, locked: CertificateRow, version: NewVersion) => {
      calls.push(`storeVersion ${within === manager}`);
      versions.push(version);
      return { certificate: { ...locked, status: 'Active' }, version };
    },
  } as unknown as StatusTransitions;
  const certificates = {
    addKey: async (within: EntityManager, ...rest: unknown[]) => {
      calls.push(`addKey ${within === manager}`);
      keys.push(rest);
    },
  } as unknown as CertificateRepository;
  const sealer = {
    seal: (versionId: string) => `sealed for ${versionId}`,
  } as unknown as CertificateKeySealer;
  return {
    issuance: new VersionIssuance(certificates, localCa, transitions, sealer),
    calls,
    signRequests,
    versions,
    keys,
  };
}

describe('VersionIssuance', () => {
  it("asks the certificate's issuer to sign the CSR with the profile's validity and must-staple and the names given", async () => {
    const { issuance, signRequests } = useCase(await signedCertificate());
    await issuance.sign(
      certificate,
      {
        csrPem: 'CSR',
        profile: { validity_days: 90, must_staple: true, allowed_ekus: [] },
        sans: [{ type: 'dns', value: 'app.example.com' }],
      },
      { actor_id: 'usr-1', request_id: 'job-1' },
    );
    await issuance.sign(
      certificate,
      { csrPem: 'CSR', profile: null },
      { actor_id: 'usr-1', request_id: 'job-2' },
    );
    expect(signRequests).toEqual([
      {
        issuer_id: 'iss-local',
        csr_pem: 'CSR',
        sans: [{ type: 'dns', value: 'app.example.com' }],
        validity_days: 90,
        must_staple: true,
      },
      { issuer_id: 'iss-local', csr_pem: 'CSR' },
    ]);
  });

  it("never lets the issuer's default EKUs past a profile's allowed_ekus: the CSR's request, else the default narrowed", async () => {
    const { issuance, signRequests } = useCase(await signedCertificate());
    const { signer } = await new SoftwareKeyProvider().generate({ algorithm: 'ECDSA', curve: 'P-256' });
    const csr = async (extendedKeyUsage?: string[]) =>
      (
        await createCsr({
          subject: [['CN', 'a.example.com']],
          signer,
          ...(extendedKeyUsage ? { extendedKeyUsage } : {}),
        })
      ).pem;
    const context = { actor_id: 'usr-1', request_id: 'job-1' };
    const clientOnly = { validity_days: null, must_staple: false, allowed_ekus: ['clientAuth' as const] };
    await issuance.sign(certificate, { csrPem: await csr(), profile: clientOnly }, context);
    await issuance.sign(
      certificate,
      {
        csrPem: await csr(['codeSigning']),
        profile: { ...clientOnly, allowed_ekus: ['serverAuth', 'codeSigning'] },
      },
      context,
    );
    await issuance.sign(
      certificate,
      { csrPem: await csr(), profile: { ...clientOnly, allowed_ekus: ['emailProtection'] } },
      context,
    );
    expect(signRequests.map((request) => request.extended_key_usage)).toEqual([
      ['clientAuth'],
      ['codeSigning'],
      ['emailProtection'],
    ]);
  });

  it('records the serial and stores the version in the caller transaction, from the issued certificate', async () => {
    const signed = await signedCertificate();
    const { issuance, calls, versions, keys } = useCase(signed);
    const stored = await issuance.store(
      manager,
      certificate,
      job,
      { signed, csrPem: 'CSR', keyAlgorithm: 'ECDSA-P256' },
      { actor_id: 'agent:a1', request_id: 'job-1' },
    );
    const parsed = parseCertificate(signed.certificate.certificate_pem);
    expect(calls).toEqual(['recordIssued true true', 'storeVersion true']);
    expect(keys).toEqual([]);
    expect(versions).toEqual([
      expect.objectContaining({
        id: stored.versionId,
        certificate_id: 'cert-1',
        serial_number: parsed.serialNumber,
        fingerprint_sha256: parsed.fingerprintSha256,
        key_algorithm: 'ECDSA-P256',
        key_size: 256,
        not_before: parsed.notBefore,
        not_after: parsed.notAfter,
        cert_pem: signed.certificate.certificate_pem,
        csr_pem: 'CSR',
        issuer_id: 'iss-local',
        job_id: 'job-1',
      }),
    ]);
    expect(stored.versionId).toMatch(/^ver-/);
    expect(stored.certificate.status).toBe('Active');
    expect(stored.issued.serialNumber).toBe(parsed.serialNumber);
  });

  it('seals a server-generated key with the version it belongs to, in the same transaction', async () => {
    const signed = await signedCertificate();
    const { issuance, calls, keys } = useCase(signed);
    const stored = await issuance.store(
      manager,
      certificate,
      job,
      { signed, csrPem: 'CSR', keyAlgorithm: 'ECDSA-P256', pkcs8: Buffer.from('key') },
      undefined,
    );
    expect(calls).toEqual(['recordIssued true true', 'storeVersion true', 'addKey true']);
    expect(keys).toEqual([[stored.versionId, 'cert-1', `sealed for ${stored.versionId}`]]);
  });
});
