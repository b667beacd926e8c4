import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { get as httpsGet } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CaCertificateDto, CaCrossCertificateDto, IssuedCertificateDto } from '@certlane/contracts';
import { NatsBus } from '@certlane/platform';
import {
  CertificateAuthority,
  createCsr,
  createSelfSignedCa,
  intermediateCaTemplate,
  parseCertificate,
  parseCrl,
  SoftwareKeyProvider,
  toPem,
} from '@certlane/pki';
import { apiRequestAs, eventually, startTestSystem, testNatsUrl, TestSystem } from '@certlane/testing';
import { Client } from 'pg';

const provider = new SoftwareKeyProvider();

/**
 * ADR 0075 against the real gateway, issuance and revocation services, NATS and Postgres, checked
 * with the `openssl` binary: a child CA carries its parent's CRL distribution point and OCSP
 * responder, the parent's OCSP answers good for it; once revoked through the API its serial is on
 * the parent's CRL and answered revoked, openssl's chain check with CRLs fails on it, and the CA
 * issues nothing more. Roots, CAs already revoked, hold reasons and the certificate route are refused.
 */
describe('revocation of intermediate CAs', () => {
  let system: TestSystem;
  let bus: NatsBus;
  let db: Client;
  let dir: string;
  let admin: string;
  let operator: string;
  let root: CaCertificateDto;
  let team: CaCertificateDto;
  let leaf: IssuedCertificateDto;
  const revocationUrl = () => system.services.revocation.url;

  const api = (method: string, path: string, body?: unknown, key = admin) =>
    apiRequestAs(system, key, method, path, body);

  const openssl = (args: string[]) => {
    const result = spawnSync('openssl', args, { cwd: dir, encoding: 'utf8', timeout: 30_000 });
    return { status: result.status, output: `${result.stdout}\n${result.stderr}` };
  };

  /** The parent's OCSP responder, through the URL the child carries, about the child's serial. */
  const ocspOfTeam = () =>
    openssl([
      'ocsp',
      '-issuer',
      'root.pem',
      '-cert',
      'team.pem',
      '-url',
      `${revocationUrl()}/ocsp/iss-local`,
      '-CAfile',
      'root.pem',
    ]);

  /** A CA's CRL from the revocation service, written as PEM for openssl. */
  async function fetchCrl(caId: string): Promise<Buffer> {
    const der = await new Promise<Buffer>((resolve, reject) => {
      const url = `${revocationUrl()}/crl/iss-local/${caId}.crl`;
      httpsGet(url, { ca: system.ca, agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          res.statusCode === 200
            ? resolve(Buffer.concat(chunks))
            : reject(new Error(`${url}: ${res.statusCode}`)),
        );
      }).once('error', reject);
    });
    writeFileSync(join(dir, `${caId}.crl.pem`), toPem('X509 CRL', der));
    return der;
  }

  const verifyLeafWithCrls = () =>
    openssl([
      'verify',
      '-crl_check_all',
      '-CAfile',
      'root.pem',
      '-untrusted',
      'team.pem',
      '-CRLfile',
      'ca-local-root.crl.pem',
      '-CRLfile',
      `${team.id}.crl.pem`,
      'leaf.pem',
    ]);

  async function issueLeaf(name: string): Promise<IssuedCertificateDto> {
    const { signer } = await provider.generate({ algorithm: 'ECDSA', curve: 'P-256' });
    const csr = await createCsr({
      subject: [['CN', name]],
      signer,
      subjectAltNames: [{ type: 'dns', value: name }],
    });
    return bus.request('issuance.v1.issue-certificate', { csr_pem: csr.pem });
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'certlane-ca-revocation-'));
    system = await startTestSystem('carevoke', ['auth', 'issuance', 'revocation', 'api-gateway']);
    admin = system.env.SERVICE_AUTH_SECRET!;
    operator = (
      (await api('POST', '/api/v1/auth/api-keys', { name: 'operator', role_ids: ['r-operator'] })).json() as {
        key: string;
      }
    ).key;
    bus = await NatsBus.connect({
      servers: [testNatsUrl()],
      name: 'ca-revocation-test',
      requestTimeoutMs: 10_000,
      namespace: system.env.SERVICE_NATS_NAMESPACE,
    });
    db = new Client({ connectionString: system.database.url });
    await db.connect();
    root = (await api('GET', '/api/v1/intermediate-cas/ca-local-root')).json() as CaCertificateDto;
    writeFileSync(join(dir, 'root.pem'), root.certificate_pem!);
  }, 90_000);

  afterAll(async () => {
    await db?.end();
    await bus?.close();
    await system?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('gives a child CA its parent CRL distribution point and OCSP responder, and records it under the parent', async () => {
    const created = await api('POST', '/api/v1/intermediate-cas', {
      issuer_id: 'iss-local',
      parent_id: 'ca-local-root',
      common_name: 'Team Issuing CA',
      path_length: 0,
      issuing: true,
    });
    expect(created.status).toBe(201);
    team = created.json() as CaCertificateDto;
    writeFileSync(join(dir, 'team.pem'), team.certificate_pem!);
    const text = openssl([
      'x509',
      '-in',
      'team.pem',
      '-noout',
      '-ext',
      'crlDistributionPoints,authorityInfoAccess',
    ]);
    expect(text.output).toMatch(/URI:https:\/\/[^\s]+\/crl\/iss-local\/ca-local-root\.crl/);
    expect(text.output).toMatch(/OCSP - URI:https:\/\/[^\s]+\/ocsp\/iss-local/);
    // The seeded issuing CA was made the same way.
    const seeded = (
      await api('GET', '/api/v1/intermediate-cas/ca-local-issuing-1')
    ).json() as CaCertificateDto;
    writeFileSync(join(dir, 'seeded.pem'), seeded.certificate_pem!);
    expect(openssl(['x509', '-in', 'seeded.pem', '-noout', '-ext', 'crlDistributionPoints']).output).toMatch(
      /\/crl\/iss-local\/ca-local-root\.crl/,
    );
    const { rows } = await db.query(
      `SELECT ca_id, purpose, fingerprint_sha256 FROM issuance.issued_certificates WHERE serial_hex = $1`,
      [team.serial_hex],
    );
    expect(rows).toEqual([
      {
        ca_id: 'ca-local-root',
        purpose: 'ca',
        fingerprint_sha256: parseCertificate(team.certificate_pem!).fingerprintSha256,
      },
    ]);
  });

  it('answers good for the child CA from the parent OCSP responder, and the chain verifies with CRLs', async () => {
    leaf = await issueLeaf('before.team.example');
    expect(leaf.ca_id).toBe(team.id);
    writeFileSync(join(dir, 'leaf.pem'), leaf.certificate_pem);
    const answer = ocspOfTeam();
    expect(answer.output).toContain('Response verify OK');
    expect(answer.output).toMatch(/team\.pem: good/);
    await fetchCrl('ca-local-root');
    await fetchCrl(team.id);
    const verified = verifyLeafWithCrls();
    expect(verified.output).toMatch(/leaf\.pem: OK/);
    expect(verified.status).toBe(0);
  });

  it('refuses a revocation the CA route does not allow: hold reasons 400, roots and unknown CAs, non-admins', async () => {
    const hold = await api('POST', `/api/v1/intermediate-cas/${team.id}/revoke`, {
      reason: 'certificateHold',
    });
    expect(hold.status).toBe(400);
    expect(hold.text).toMatch(/reason must be one of/);
    const rootRevoke = await api('POST', '/api/v1/intermediate-cas/ca-local-root/revoke', {});
    expect(rootRevoke.status).toBe(409);
    expect(rootRevoke.text).toMatch(/no parent here/);
    expect((await api('POST', '/api/v1/intermediate-cas/ca-nope-0000/revoke', {})).status).toBe(404);
    expect((await api('POST', `/api/v1/intermediate-cas/${team.id}/revoke`, {}, operator)).status).toBe(403);
    // A CA's serial is not a certificate's: the certificate revocation path refuses it.
    await expect(
      bus.request('issuance.v1.revoke-certificate', { issuer_id: 'iss-local', serial_hex: team.serial_hex! }),
    ).rejects.toMatchObject({ code: 'certificate_not_found' });
    const { rows } = await db.query('SELECT 1 FROM issuance.revocations WHERE serial_hex = $1', [
      team.serial_hex,
    ]);
    expect(rows).toEqual([]);
  });

  it('revokes the child CA: on the parent CRL with its reason, OCSP revoked, the chain fails, no more issuance', async () => {
    const revoked = await api('POST', `/api/v1/intermediate-cas/${team.id}/revoke`, {
      reason: 'caCompromise',
    });
    expect(revoked.status).toBe(200);
    expect(revoked.json()).toMatchObject({
      id: team.id,
      status: 'revoked',
      revocation_reason: 'caCompromise',
      revoked_at: expect.any(String),
    });

    let entry: { serialNumber: string; reason?: string } | undefined;
    await eventually(async () => {
      entry = parseCrl(await fetchCrl('ca-local-root')).entries.find(
        (e) => e.serialNumber === team.serial_hex,
      );
      return entry !== undefined;
    }, "the child CA's serial on the root's CRL");
    expect(entry?.reason).toBe('caCompromise');
    await eventually(() => /team\.pem: revoked/.test(ocspOfTeam().output), 'OCSP revoked for the child CA');
    const answer = ocspOfTeam();
    expect(answer.output).toContain('Response verify OK');
    expect(answer.output).toMatch(/Reason: cACompromise/);

    await fetchCrl(team.id);
    const verified = verifyLeafWithCrls();
    expect(verified.status).not.toBe(0);
    expect(verified.output).toMatch(/certificate revoked/);

    await expect(issueLeaf('after.team.example')).rejects.toMatchObject({ code: 'ca_not_active' });
    const again = await api('POST', `/api/v1/intermediate-cas/${team.id}/revoke`, { reason: 'superseded' });
    expect(again.status).toBe(409);
    expect(again.text).toMatch(/already revoked/);
    let events: { resource_id: string; details?: Record<string, unknown> }[] = [];
    await eventually(async () => {
      events = (
        (await api('GET', '/api/v1/audit?action=ca.revoked&per_page=50')).json() as { data: typeof events }
      ).data;
      return events.length > 0;
    }, 'the ca.revoked audit event stored');
    expect(events.map((event) => event.resource_id)).toEqual([team.id]);
  });

  it('retires the CAs below a revoked CA, and names their key identifiers for the renewal of what they issued', async () => {
    const create = async (body: Record<string, unknown>) => {
      const created = await api('POST', '/api/v1/intermediate-cas', { issuer_id: 'iss-local', ...body });
      expect(created.status).toBe(201);
      return created.json() as CaCertificateDto;
    };
    const middle = await create({ parent_id: 'ca-local-root', common_name: 'Middle CA', path_length: 1 });
    const below = await create({ parent_id: middle.id, common_name: 'Below CA', path_length: 0 });
    const beside = await create({ parent_id: 'ca-local-root', common_name: 'Beside CA', path_length: 0 });
    expect((await api('POST', `/api/v1/intermediate-cas/${middle.id}/revoke`, {})).status).toBe(200);
    const statusOf = async (id: string) =>
      ((await api('GET', `/api/v1/intermediate-cas/${id}`)).json() as CaCertificateDto).status;
    expect(await statusOf(middle.id)).toBe('revoked');
    expect(await statusOf(below.id)).toBe('retired');
    expect(await statusOf(beside.id)).toBe('active');
    const { rows } = await db.query(
      `SELECT envelope->'data' AS data FROM issuance.outbox
        WHERE subject = 'issuance.v1.ca.revoked' AND envelope->'data'->>'ca_id' = $1`,
      [middle.id],
    );
    const keyIdOf = (ca: CaCertificateDto) =>
      parseCertificate(ca.certificate_pem!).decoded.subjectKeyIdentifier!.toString('hex');
    expect(rows).toEqual([
      {
        data: expect.objectContaining({
          key_identifiers: [keyIdOf(middle), keyIdOf(below)],
          retired_ca_ids: [below.id],
        }),
      },
    ]);
  });

  it('revokes a cross-certificate signed here onto its signer CRL; one an external CA signed is refused', async () => {
    const secondRoot = (
      await api('POST', '/api/v1/intermediate-cas', { issuer_id: 'iss-local', common_name: 'Second Root' })
    ).json() as CaCertificateDto;
    const target = (
      await api('POST', '/api/v1/intermediate-cas', {
        issuer_id: 'iss-local',
        parent_id: 'ca-local-root',
        common_name: 'Cross-certified CA',
        path_length: 0,
      })
    ).json() as CaCertificateDto;
    const made = await api('POST', `/api/v1/intermediate-cas/${target.id}/cross-certificates`, {
      parent_id: secondRoot.id,
    });
    expect(made.status).toBe(201);
    const cross = made.json() as CaCrossCertificateDto;
    writeFileSync(join(dir, 'second-root.pem'), secondRoot.certificate_pem!);
    writeFileSync(join(dir, 'cross.pem'), cross.certificate_pem);
    expect(openssl(['x509', '-in', 'cross.pem', '-noout', '-ext', 'crlDistributionPoints']).output).toContain(
      `/crl/iss-local/${secondRoot.id}.crl`,
    );
    const ocspOfCross = () =>
      openssl([
        'ocsp',
        '-issuer',
        'second-root.pem',
        '-cert',
        'cross.pem',
        '-url',
        `${revocationUrl()}/ocsp/iss-local`,
        '-CAfile',
        'second-root.pem',
      ]);
    expect(ocspOfCross().output).toMatch(/cross\.pem: good/);

    const path = `/api/v1/intermediate-cas/${target.id}/cross-certificates/${cross.id}/revoke`;
    const revoked = await api('POST', path, { reason: 'superseded' });
    expect(revoked.status).toBe(200);
    expect(revoked.json()).toMatchObject({
      status: 'revoked',
      revocation_reason: 'superseded',
      retired_at: expect.any(String),
    });
    await eventually(
      async () =>
        parseCrl(await fetchCrl(secondRoot.id)).entries.some(
          (e) => e.serialNumber === cross.serial_hex && e.reason === 'superseded',
        ),
      "the cross-certificate's serial on its signer's CRL",
    );
    await eventually(
      () => /cross\.pem: revoked/.test(ocspOfCross().output),
      'OCSP revoked for the cross-certificate',
    );
    expect((await api('POST', path, {})).status).toBe(409);
    expect(
      (await api('POST', `/api/v1/intermediate-cas/${target.id}/cross-certificates/${cross.id}/retire`))
        .status,
    ).toBe(409);

    // A cross-certificate an external CA signed (imported): that CA revokes it, not this system.
    const external = await provider.generate({ algorithm: 'ECDSA', curve: 'P-256' });
    const now = new Date();
    const externalRoot = await createSelfSignedCa({
      subject: [['CN', 'External Root']],
      signer: external.signer,
      notBefore: now,
      notAfter: new Date(now.getTime() + 86_400_000),
    });
    const own = parseCertificate(target.certificate_pem!);
    const externalCross = await new CertificateAuthority({
      certificate: externalRoot.der,
      signer: external.signer,
    }).issue(
      intermediateCaTemplate({
        subject: own.subject.der,
        publicKey: own.publicKey,
        notBefore: now,
        notAfter: new Date(now.getTime() + 3_600_000),
      }),
    );
    const imported = (
      await api('POST', `/api/v1/intermediate-cas/${target.id}/cross-certificates`, {
        certificate_pem: toPem('CERTIFICATE', externalCross.der),
      })
    ).json() as CaCrossCertificateDto;
    expect(imported.parent_id).toBeNull();
    const refused = await api(
      'POST',
      `/api/v1/intermediate-cas/${target.id}/cross-certificates/${imported.id}/revoke`,
      {},
    );
    expect(refused.status).toBe(409);
    expect(refused.text).toMatch(/external CA/);
  });

  it('records child CAs made before this change with the fingerprint of their DER (migration 0022)', async () => {
    const seeded = (
      await api('GET', '/api/v1/intermediate-cas/ca-local-issuing-1')
    ).json() as CaCertificateDto;
    const recorded = async (serial: string | null) =>
      (
        await db.query(
          'SELECT ca_id, purpose, fingerprint_sha256 FROM issuance.issued_certificates WHERE serial_hex = $1',
          [serial],
        )
      ).rows;
    const atCreation = await recorded(seeded.serial_hex);
    expect(atCreation).toHaveLength(1);
    const crossRecorded = (
      await db.query(
        `SELECT i.serial_hex, i.ca_id, i.fingerprint_sha256 FROM issuance.issued_certificates i
           JOIN issuance.ca_cross_certificates x ON x.serial_hex = i.serial_hex ORDER BY 1`,
      )
    ).rows;
    expect(crossRecorded).toHaveLength(1);
    await db.query(`DELETE FROM issuance.issued_certificates WHERE purpose = 'ca'`);
    const migration = readFileSync(
      join(__dirname, '../../../migrations/issuance/0022_ca_revocation.sql'),
      'utf8',
    );
    await db.query(`SET search_path TO issuance; ${migration}; RESET search_path`);
    const der = (pem: string) => Buffer.from(pem.replace(/-----[A-Z ]+-----|\s/g, ''), 'base64');
    for (const ca of [seeded, team]) {
      expect(await recorded(ca.serial_hex)).toEqual([
        {
          ca_id: 'ca-local-root',
          purpose: 'ca',
          fingerprint_sha256: createHash('sha256').update(der(ca.certificate_pem!)).digest('hex'),
        },
      ]);
    }
    expect((await recorded(seeded.serial_hex))[0].fingerprint_sha256).toBe(atCreation[0].fingerprint_sha256);
    expect(
      (
        await db.query(
          `SELECT i.serial_hex, i.ca_id, i.fingerprint_sha256 FROM issuance.issued_certificates i
             JOIN issuance.ca_cross_certificates x ON x.serial_hex = i.serial_hex ORDER BY 1`,
        )
      ).rows,
    ).toEqual(crossRecorded);
    // The root has no parent: it is not among what the issuer issued.
    expect(await recorded(root.serial_hex)).toEqual([]);
  });
});
