import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CaCertificateDto,
  CaCrossCertificateDto,
  IssuedCertificateDto,
  IssuerDto,
} from '@certlane/contracts';
import {
  CertificateAuthority,
  createCsr,
  createSelfSignedCa,
  intermediateCaTemplate,
  parseCertificate,
  SoftwareKeyProvider,
  toPem,
} from '@certlane/pki';
import { NatsBus } from '@certlane/platform';
import { httpsRequest, startTestSystem, testNatsUrl, TestSystem } from '@certlane/testing';
import { Client } from 'pg';

const provider = new SoftwareKeyProvider();
const DAY_MS = 86_400_000;

async function csrFor(name: string): Promise<string> {
  const { signer } = await provider.generate({ algorithm: 'ECDSA', curve: 'P-256' });
  return (
    await createCsr({ subject: [['CN', name]], signer, subjectAltNames: [{ type: 'dns', value: name }] })
  ).pem;
}

/** A CA outside Certlane: its root certificate and what it signs. */
async function externalCa(name: string) {
  const { signer } = await provider.generate({ algorithm: 'ECDSA', curve: 'P-256' });
  const now = new Date();
  const root = await createSelfSignedCa({
    subject: [['CN', name]],
    signer,
    notBefore: new Date(now.getTime() - DAY_MS),
    notAfter: new Date(now.getTime() + 365 * DAY_MS),
  });
  const authority = new CertificateAuthority({ certificate: root.der, signer });
  return {
    rootPem: toPem('CERTIFICATE', root.der),
    /** A certificate of `subject` and `publicKey` (a CA unless `endEntity`). */
    sign: async (
      subject: Buffer,
      publicKey: ReturnType<typeof parseCertificate>['publicKey'],
      endEntity = false,
    ) => {
      const template = intermediateCaTemplate({
        subject,
        publicKey,
        notBefore: new Date(now.getTime() - 60_000),
        notAfter: new Date(now.getTime() + 30 * DAY_MS),
      });
      const issued = await authority.issue(
        endEntity ? { ...template, ca: undefined, keyUsage: ['digitalSignature'] } : template,
      );
      return toPem('CERTIFICATE', issued.der);
    },
  };
}

/** openssl verify of a leaf against one trust anchor with the given untrusted chain: 'leaf.pem: OK' or the error. */
function opensslVerify(anchorPem: string, untrustedPem: string, leafPem: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'cross-int-'));
  writeFileSync(join(dir, 'anchor.pem'), anchorPem);
  writeFileSync(join(dir, 'untrusted.pem'), untrustedPem);
  writeFileSync(join(dir, 'leaf.pem'), leafPem);
  try {
    return execFileSync(
      'openssl',
      ['verify', '-CAfile', 'anchor.pem', '-untrusted', 'untrusted.pem', 'leaf.pem'],
      { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
    ).trim();
  } catch (error) {
    return String((error as { stderr?: string; stdout?: string }).stdout ?? error);
  }
}

/** Cross-certificates of local CAs and the alternate chains of issued certificates (ADR 0070). */
describe('cross-certificates and alternate chains', () => {
  let system: TestSystem;
  let bus: NatsBus;
  let db: Client;
  let admin: string;
  let operator: string;
  let issuer: IssuerDto;
  let root1: CaCertificateDto;
  let issuing: CaCertificateDto;
  let root2: CaCertificateDto;

  const api = (method: string, path: string, body?: unknown, key = admin) =>
    httpsRequest(`${system.services['api-gateway'].url}${path}`, {
      method,
      ca: system.ca,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const getCa = async (id: string) =>
    (await api('GET', `/api/v1/intermediate-cas/${id}`)).json() as CaCertificateDto;
  const crossSign = (caId: string, body: unknown, key = admin) =>
    api('POST', `/api/v1/intermediate-cas/${caId}/cross-certificates`, body, key);
  const issue = async (name: string) =>
    (await bus.request('issuance.v1.issue-certificate', {
      issuer_id: issuer.id,
      csr_pem: await csrFor(name),
      validity_days: 5,
    })) as IssuedCertificateDto;
  const audits = async (action: string, resourceId: string) =>
    (
      await db.query(
        `SELECT envelope->'data' AS data FROM issuance.outbox WHERE subject = 'issuance.v1.audit.recorded'
           AND envelope->'data'->>'action' = $1 AND envelope->'data'->>'resource_id' = $2`,
        [action, resourceId],
      )
    ).rows.map((row) => row.data);

  beforeAll(async () => {
    system = await startTestSystem('crossca', ['auth', 'issuance', 'api-gateway']);
    admin = system.env.SERVICE_AUTH_SECRET!;
    const key = await api('POST', '/api/v1/auth/api-keys', { name: 'operator', role_ids: ['r-operator'] });
    operator = (key.json() as { key: string }).key;
    bus = await NatsBus.connect({
      servers: [testNatsUrl()],
      name: 'crossca-test',
      requestTimeoutMs: 10_000,
      namespace: system.env.SERVICE_NATS_NAMESPACE,
    });
    db = new Client({ connectionString: system.database.url });
    await db.connect();
    issuer = (
      await api('POST', '/api/v1/issuers', { name: 'Migrating CA', type: 'local_ca' })
    ).json() as IssuerDto;
    issuing = await getCa(issuer.issuing_ca_id!);
    root1 = await getCa(issuing.parent_id!);
    const created = await api('POST', '/api/v1/intermediate-cas', {
      issuer_id: 'iss-local',
      common_name: 'New Root 2',
    });
    expect(created.status).toBe(201);
    root2 = created.json() as CaCertificateDto;
  }, 60_000);

  afterAll(async () => {
    await db?.end();
    await bus?.close();
    await system?.stop();
  });

  it('issues without alternate chains while the chain has no cross-certificate', async () => {
    const issued = await issue('plain.example.com');
    expect(issued.alternate_chains_pem).toBeUndefined();
    expect(opensslVerify(root1.certificate_pem!, issued.chain_pem, issued.certificate_pem)).toBe(
      'leaf.pem: OK',
    );
  });

  it('cross-signs the issuing CA by a second root: leaves verify against either root', async () => {
    expect((await crossSign(issuing.id, { parent_id: root2.id }, operator)).status).toBe(403);
    const created = await crossSign(issuing.id, { parent_id: root2.id });
    expect(created.status).toBe(201);
    const cross = created.json() as CaCrossCertificateDto;
    expect(cross).toMatchObject({
      ca_id: issuing.id,
      parent_id: root2.id,
      issuer: root2.subject,
      status: 'active',
    });
    const certificate = parseCertificate(cross.certificate_pem);
    const own = parseCertificate(issuing.certificate_pem!);
    const anchor = parseCertificate(root2.certificate_pem!);
    expect(certificate.subject.der.equals(own.subject.der)).toBe(true);
    expect(certificate.publicKey.spki.equals(own.publicKey.spki)).toBe(true);
    expect(certificate.decoded.basicConstraints).toEqual(own.decoded.basicConstraints);
    expect(certificate.decoded.keyUsage).toEqual(expect.arrayContaining(['keyCertSign', 'cRLSign']));
    expect(certificate.decoded.subjectKeyIdentifier).toEqual(own.decoded.subjectKeyIdentifier);
    expect(certificate.decoded.authorityKeyIdentifier).toEqual(anchor.decoded.subjectKeyIdentifier);
    expect(certificate.notAfter.getTime()).toBeLessThanOrEqual(own.notAfter.getTime());
    expect(await audits('ca.cross_certificate_created', cross.id)).toEqual([
      expect.objectContaining({
        event_category: 'config',
        resource_type: 'ca_cross_certificate',
        details: expect.objectContaining({ ca_id: issuing.id, parent_id: root2.id, imported: false }),
      }),
    ]);

    const issued = await issue('cross.example.com');
    expect(issued.alternate_chains_pem).toEqual([cross.certificate_pem + root2.certificate_pem]);
    expect(issued.chain_pem).toBe(issuing.certificate_pem! + root1.certificate_pem!);
    const alternate = issued.alternate_chains_pem![0];
    expect(opensslVerify(root2.certificate_pem!, alternate, issued.certificate_pem)).toBe('leaf.pem: OK');
    expect(opensslVerify(root1.certificate_pem!, issued.chain_pem, issued.certificate_pem)).toBe(
      'leaf.pem: OK',
    );
    expect(opensslVerify(root2.certificate_pem!, issued.chain_pem, issued.certificate_pem)).not.toBe(
      'leaf.pem: OK',
    );

    const listed = await api('GET', `/api/v1/intermediate-cas/${issuing.id}/cross-certificates`);
    expect(listed.status).toBe(200);
    expect(listed.json()).toMatchObject({ data: [cross], total: 1 });
  });

  it('cross-signs a parent of the issuing CA: its alternate keeps the chain below it', async () => {
    const created = await crossSign(root1.id, { parent_id: root2.id, validity_days: 30 });
    expect(created.status).toBe(201);
    const cross = created.json() as CaCrossCertificateDto;
    expect(new Date(cross.not_after).getTime() - new Date(cross.not_before).getTime()).toBe(30 * DAY_MS);
    const issued = await issue('deep.example.com');
    expect(issued.alternate_chains_pem).toHaveLength(2);
    const viaRoot1Cross = issued.alternate_chains_pem![1];
    expect(viaRoot1Cross).toBe(issuing.certificate_pem! + cross.certificate_pem + root2.certificate_pem!);
    for (const alternate of issued.alternate_chains_pem!)
      expect(opensslVerify(root2.certificate_pem!, alternate, issued.certificate_pem)).toBe('leaf.pem: OK');
    const retired = await api(
      'POST',
      `/api/v1/intermediate-cas/${root1.id}/cross-certificates/${cross.id}/retire`,
    );
    expect(retired.status).toBe(200);
  });

  it('imports a cross-certificate an external CA signed, and refuses what does not match', async () => {
    const external = await externalCa('External Bridge Root');
    const own = parseCertificate(issuing.certificate_pem!);
    const other = parseCertificate(root2.certificate_pem!);
    const refused = async (certificatePem: string, rule: string) => {
      const response = await crossSign(issuing.id, { certificate_pem: certificatePem });
      expect(response.status).toBe(400);
      expect(response.json()).toMatchObject({ code: 'cross_certificate_invalid', details: { rule } });
    };
    await refused(await external.sign(other.subject.der, own.publicKey), 'subject_mismatch');
    await refused(await external.sign(own.subject.der, other.publicKey), 'key_mismatch');
    await refused(await external.sign(own.subject.der, own.publicKey, true), 'not_a_ca');
    expect((await crossSign(issuing.id, { certificate_pem: 'not a certificate' })).status).toBe(400);

    const pem = await external.sign(own.subject.der, own.publicKey);
    const created = await crossSign(issuing.id, { certificate_pem: pem });
    expect(created.status).toBe(201);
    const cross = created.json() as CaCrossCertificateDto;
    expect(cross).toMatchObject({ parent_id: null, issuer: 'CN=External Bridge Root', certificate_pem: pem });
    expect(await audits('ca.cross_certificate_created', cross.id)).toHaveLength(1);

    const issued = await issue('imported.example.com');
    expect(issued.alternate_chains_pem).toContain(pem);
    expect(opensslVerify(external.rootPem, pem, issued.certificate_pem)).toBe('leaf.pem: OK');
  });

  it('refuses loops, inactive CAs and parents, and bodies without exactly one source', async () => {
    const loop = await crossSign(root1.id, { parent_id: issuing.id });
    expect(loop.status).toBe(409);
    expect(loop.json()).toMatchObject({ code: 'cross_certificate_loop' });
    expect((await crossSign(issuing.id, { parent_id: issuing.id })).json()).toMatchObject({
      code: 'cross_certificate_loop',
    });

    const retiredRoot = (
      await api('POST', '/api/v1/intermediate-cas', { issuer_id: 'iss-local', common_name: 'Retired Root' })
    ).json() as CaCertificateDto;
    expect((await api('POST', `/api/v1/intermediate-cas/${retiredRoot.id}/retire`)).status).toBe(200);
    const inactiveParent = await crossSign(issuing.id, { parent_id: retiredRoot.id });
    expect(inactiveParent.status).toBe(409);
    expect(inactiveParent.json()).toMatchObject({ code: 'ca_not_active' });
    const inactiveCa = await crossSign(retiredRoot.id, { parent_id: root2.id });
    expect(inactiveCa.status).toBe(409);
    expect(inactiveCa.json()).toMatchObject({ code: 'ca_not_active' });

    expect((await crossSign('ca-nope', { parent_id: root2.id })).json()).toMatchObject({
      code: 'ca_not_found',
    });
    const unknownParent = await crossSign(issuing.id, { parent_id: 'ca-nope' });
    expect(unknownParent.status).toBe(404);
    for (const body of [
      {},
      { parent_id: root2.id, certificate_pem: root2.certificate_pem },
      { parent_id: 7 },
    ]) {
      const response = await crossSign(issuing.id, body);
      expect(response.status).toBe(400);
      expect(response.json()).toMatchObject({ code: 'validation_failed' });
    }
    expect((await api('GET', '/api/v1/intermediate-cas/ca-nope/cross-certificates')).status).toBe(404);
    expect(
      (await api('GET', `/api/v1/intermediate-cas/${issuing.id}/cross-certificates`, undefined, operator))
        .status,
    ).toBe(403);
  });

  it('retires a cross-certificate: it leaves the alternate chains, once, audited', async () => {
    const list = (await api('GET', `/api/v1/intermediate-cas/${issuing.id}/cross-certificates`)).json() as {
      data: CaCrossCertificateDto[];
    };
    const byRoot2 = list.data.find((cross) => cross.parent_id === root2.id)!;
    const path = `/api/v1/intermediate-cas/${issuing.id}/cross-certificates/${byRoot2.id}/retire`;
    expect((await api('POST', path, undefined, operator)).status).toBe(403);
    const retired = await api('POST', path);
    expect(retired.status).toBe(200);
    expect(retired.json()).toMatchObject({
      id: byRoot2.id,
      status: 'retired',
      retired_at: expect.any(String),
    });
    const again = await api('POST', path);
    expect(again.status).toBe(409);
    expect(again.json()).toMatchObject({ code: 'cross_certificate_retired' });
    expect(
      (await api('POST', `/api/v1/intermediate-cas/${root1.id}/cross-certificates/${byRoot2.id}/retire`))
        .status,
    ).toBe(404);
    expect(
      (await api('POST', `/api/v1/intermediate-cas/${issuing.id}/cross-certificates/xc-nope/retire`)).json(),
    ).toMatchObject({ code: 'cross_certificate_not_found' });
    expect(await audits('ca.cross_certificate_retired', byRoot2.id)).toEqual([
      expect.objectContaining({ details: expect.objectContaining({ ca_id: issuing.id }) }),
    ]);

    const issued = await issue('after-retire.example.com');
    expect(issued.alternate_chains_pem).toHaveLength(1);
    expect(issued.alternate_chains_pem!.join('')).not.toContain(byRoot2.certificate_pem);
  });
});
