import { execFileSync } from 'node:child_process';
import { createHash, verify } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CaCertificateDto, IssuedCertificateDto, IssuerDto } from '@certlane/contracts';
import { createCsr, parseCertificate, publicKeyObject, SoftwareKeyProvider } from '@certlane/pki';
import { NatsBus, SecretBox } from '@certlane/platform';
import { httpsRequest, startTestSystem, testNatsUrl, TestSystem } from '@certlane/testing';
import { Client } from 'pg';

const provider = new SoftwareKeyProvider();

async function csrFor(name: string): Promise<string> {
  const { signer } = await provider.generate({ algorithm: 'ECDSA', curve: 'P-256' });
  return (
    await createCsr({ subject: [['CN', name]], signer, subjectAltNames: [{ type: 'dns', value: name }] })
  ).pem;
}

/** Issuers, the local CA and its bus subjects through real gateway, auth and issuance processes. */
describe('issuers and the local CA', () => {
  let system: TestSystem;
  let bus: NatsBus;
  let db: Client;
  let admin: string;
  let operator: string;

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

  beforeAll(async () => {
    system = await startTestSystem('localca', ['auth', 'issuance', 'api-gateway']);
    admin = system.env.SERVICE_AUTH_SECRET!;
    const created = await api('POST', '/api/v1/auth/api-keys', {
      name: 'operator',
      role_ids: ['r-operator'],
    });
    operator = (created.json() as { key: string }).key;
    bus = await NatsBus.connect({
      servers: [testNatsUrl()],
      name: 'localca-test',
      requestTimeoutMs: 10_000,
      namespace: system.env.SERVICE_NATS_NAMESPACE,
    });
    db = new Client({ connectionString: system.database.url });
    await db.connect();
  }, 60_000);

  afterAll(async () => {
    await db?.end();
    await bus?.close();
    await system?.stop();
  });

  it('lists the seeded default local CA issuer with CRL and OCSP support', async () => {
    const response = await api('GET', '/api/v1/issuers');
    expect(response.status).toBe(200);
    const page = response.json() as { data: IssuerDto[]; total: number };
    expect(page.data).toEqual([
      expect.objectContaining({
        id: 'iss-local',
        type: 'local_ca',
        issuing_ca_id: 'ca-local-issuing-1',
        capabilities: { crl: true, ocsp: true, revoke: true, issue: true },
      }),
    ]);
    expect(page.total).toBe(1);
  });

  it('creates, reads, updates and deletes an issuer with every status code, secrets redacted and sealed', async () => {
    const token = 's.vault-token-0123456789-plaintext';
    const config = { address: 'https://vault.example.com', mount: 'pki', role: 'web', token };
    const created = await api('POST', '/api/v1/issuers', { name: 'Vault Prod', type: 'vault_pki', config });
    expect(created.status).toBe(201);
    const issuer = created.json() as IssuerDto;
    expect(issuer).toMatchObject({
      id: 'iss-vault-prod',
      type: 'vault_pki',
      config: { ...config, token: '********' },
      capabilities: { crl: false, ocsp: false, revoke: true, issue: true },
    });
    expect(created.text).not.toContain(token);
    expect(created.text).not.toContain('config_sealed');

    const fetched = await api('GET', '/api/v1/issuers/iss-vault-prod');
    expect(fetched.status).toBe(200);
    expect(fetched.text).not.toContain(token);

    // At rest: sealed, not the plaintext; it opens with the key, bound to the issuer id.
    const { rows } = await db.query(
      'SELECT config_sealed, config_public::text AS pub FROM issuance.issuers WHERE id = $1',
      ['iss-vault-prod'],
    );
    expect(rows[0].config_sealed).toMatch(/^v1\./);
    expect(rows[0].config_sealed).not.toContain(token);
    expect(rows[0].pub).not.toContain(token);
    const box = new SecretBox(system.env.SERVICE_CONFIG_ENCRYPTION_KEY!, 'issuance issuer config v1');
    expect(JSON.parse(box.open(rows[0].config_sealed, 'iss-vault-prod'))).toEqual(config);

    // PUT with the redacted value keeps the stored token; another value replaces it.
    const updated = await api('PUT', '/api/v1/issuers/iss-vault-prod', {
      name: 'Vault Production',
      config: { ...config, role: 'api', token: '********' },
    });
    expect(updated.status).toBe(200);
    expect(updated.json()).toMatchObject({
      name: 'Vault Production',
      config: { role: 'api', token: '********' },
    });
    const after = await db.query('SELECT config_sealed FROM issuance.issuers WHERE id = $1', [
      'iss-vault-prod',
    ]);
    expect(JSON.parse(box.open(after.rows[0].config_sealed, 'iss-vault-prod'))).toMatchObject({
      role: 'api',
      token,
    });

    expect(
      (await api('POST', '/api/v1/issuers', { name: 'vault production', type: 'acme', config: {} })).status,
    ).toBe(400);
    const duplicate = await api('POST', '/api/v1/issuers', {
      name: 'VAULT PRODUCTION',
      type: 'vault_pki',
      config,
    });
    expect(duplicate.status).toBe(409);
    expect(duplicate.json()).toMatchObject({ code: 'issuer_duplicate_name' });
    const typeChange = await api('PUT', '/api/v1/issuers/iss-vault-prod', { type: 'acme' });
    expect(typeChange.status).toBe(409);
    // Its own code: the issuer is not "in use", its type is fixed at creation.
    expect(typeChange.json()).toMatchObject({ code: 'issuer_type_immutable' });

    const digicert = await api('POST', '/api/v1/issuers', {
      name: 'DigiCert',
      type: 'digicert',
      config: { api_key: 'dc-0123456789', product_name_id: 'ssl_plus' },
    });
    expect(digicert.json()).toMatchObject({
      capabilities: { crl: false, ocsp: false, revoke: false, issue: false },
    });
    const test = await api('POST', `/api/v1/issuers/${(digicert.json() as IssuerDto).id}/test`);
    expect(test.status).toBe(200);
    expect(test.json()).toMatchObject({ status: 'not_implemented' });

    expect((await api('DELETE', '/api/v1/issuers/iss-vault-prod')).status).toBe(204);
    expect((await api('GET', '/api/v1/issuers/iss-vault-prod')).status).toBe(404);
    expect((await api('PUT', '/api/v1/issuers/iss-vault-prod', { name: 'x' })).status).toBe(404);
    expect((await api('DELETE', '/api/v1/issuers/iss-vault-prod')).status).toBe(404);
  });

  it.each([
    [{ name: 'x', type: 'nope' }, 'validation_failed'],
    [{ name: '', type: 'acme' }, 'validation_failed'],
    [
      { name: 'acme1', type: 'acme', config: { directory_url: 'http://insecure', email: 'a@b.c' } },
      'issuer_config_invalid',
    ],
    [
      { name: 'script1', type: 'script', config: { issue_command: 'issue.sh; rm -rf /' } },
      'issuer_config_invalid',
    ],
    [{ name: 'local1', type: 'local_ca', config: { unknown_setting: 1 } }, 'issuer_config_invalid'],
  ])('refuses %j with 400 %s', async (body, code) => {
    const response = await api('POST', '/api/v1/issuers', body);
    expect(response.status).toBe(400);
    expect(response.json()).toMatchObject({ code });
  });

  it('refuses to delete an issuer that holds CAs, and tests the local CA', async () => {
    const response = await api('DELETE', '/api/v1/issuers/iss-local');
    expect(response.status).toBe(409);
    expect(response.json()).toMatchObject({ code: 'issuer_in_use' });
    const test = await api('POST', '/api/v1/issuers/iss-local/test');
    expect(test.status).toBe(200);
    expect(test.json()).toMatchObject({ status: 'ok' });
  });

  it('keeps every CA private key sealed: no PEM private key in any issuance column', async () => {
    const { rows } = await db.query(
      `SELECT table_name, column_name FROM information_schema.columns
        WHERE table_schema = 'issuance' AND data_type IN ('text', 'jsonb', 'bytea')`,
    );
    for (const { table_name, column_name } of rows) {
      const hit = await db.query(
        `SELECT count(*)::int AS n FROM issuance.${table_name} WHERE ${column_name}::text LIKE '%PRIVATE KEY%'`,
      );
      expect(`${table_name}.${column_name}: ${hit.rows[0].n}`).toBe(`${table_name}.${column_name}: 0`);
    }
    const keys = await db.query('SELECT private_key_sealed FROM issuance.ca_certificates');
    expect(keys.rows.length).toBeGreaterThanOrEqual(2);
    for (const row of keys.rows) expect(row.private_key_sealed).toMatch(/^v1\./);
  });

  it('issues over the bus a certificate that openssl verifies against the root and intermediate', async () => {
    const issued = await bus.request('issuance.v1.issue-certificate', {
      csr_pem: await csrFor('app.example.com'),
      validity_days: 10,
    });
    expect(issued).toMatchObject({ issuer_id: 'iss-local', ca_id: 'ca-local-issuing-1' });
    const root = (await api('GET', '/api/v1/intermediate-cas/ca-local-root')).json() as CaCertificateDto;
    const intermediate = (
      await api('GET', '/api/v1/intermediate-cas/ca-local-issuing-1')
    ).json() as CaCertificateDto;
    expect(issued.chain_pem).toBe(intermediate.certificate_pem! + root.certificate_pem!);
    expect(issued.full_pem).toBe(issued.certificate_pem + issued.chain_pem);
    const dir = mkdtempSync(join(tmpdir(), 'localca-int-'));
    writeFileSync(join(dir, 'root.pem'), root.certificate_pem!);
    writeFileSync(join(dir, 'intermediate.pem'), intermediate.certificate_pem!);
    writeFileSync(join(dir, 'leaf.pem'), issued.certificate_pem);
    const out = execFileSync(
      'openssl',
      ['verify', '-CAfile', 'root.pem', '-untrusted', 'intermediate.pem', 'leaf.pem'],
      { cwd: dir, encoding: 'utf8' },
    );
    expect(out.trim()).toBe('leaf.pem: OK');
    const leaf = parseCertificate(issued.certificate_pem);
    expect(leaf.decoded.crlDistributionPoints).toEqual([
      'https://localhost:8443/crl/iss-local/ca-local-issuing-1.crl',
    ]);
    expect(leaf.decoded.ocspUrls).toEqual(['https://localhost:8443/ocsp/iss-local']);
    const recorded = await db.query(
      'SELECT ca_id, fingerprint_sha256 FROM issuance.issued_certificates WHERE issuer_id = $1 AND serial_hex = $2',
      ['iss-local', issued.serial_hex],
    );
    expect(recorded.rows).toEqual([
      { ca_id: 'ca-local-issuing-1', fingerprint_sha256: issued.fingerprint_sha256 },
    ]);
  });

  it('refuses a weak CSR with 400 csr_invalid naming the rule', async () => {
    const weak = execFileSync(
      'openssl',
      ['req', '-new', '-newkey', 'rsa:1024', '-nodes', '-keyout', '/dev/null', '-subj', '/CN=weak'],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] },
    );
    await expect(bus.request('issuance.v1.issue-certificate', { csr_pem: weak })).rejects.toMatchObject({
      code: 'csr_invalid',
      details: { rule: 'key_too_weak' },
    });
  });

  it('refuses issuance for an unknown issuer and beyond the issuer config max_validity_days', async () => {
    const csr = await csrFor('limits.example.com');
    await expect(
      bus.request('issuance.v1.issue-certificate', { issuer_id: 'iss-nobody', csr_pem: csr }),
    ).rejects.toMatchObject({ code: 'issuer_not_found' });
    const created = await api('POST', '/api/v1/issuers', {
      name: 'Short-lived CA',
      type: 'local_ca',
      config: { max_validity_days: 30 },
    });
    expect(created.status).toBe(201);
    const issuer = created.json() as IssuerDto;
    await expect(
      bus.request('issuance.v1.issue-certificate', { issuer_id: issuer.id, csr_pem: csr, validity_days: 31 }),
    ).rejects.toMatchObject({ code: 'validation_failed' });
    const issued = (await bus.request('issuance.v1.issue-certificate', {
      issuer_id: issuer.id,
      csr_pem: csr,
      validity_days: 30,
    })) as { ca_id: string };
    expect(issued.ca_id).toBe(issuer.issuing_ca_id);
  });

  it('stops issuance under a retired CA (409) but keeps its CA material for CRL and OCSP', async () => {
    const created = await api('POST', '/api/v1/issuers', { name: 'Retiring CA', type: 'local_ca' });
    expect(created.status).toBe(201);
    const issuer = created.json() as IssuerDto;
    expect(issuer.issuing_ca_id).toMatch(/^ca-/);
    const csr = await csrFor('before.example.com');
    await bus.request('issuance.v1.issue-certificate', { issuer_id: issuer.id, csr_pem: csr });

    expect(
      (await api('POST', `/api/v1/intermediate-cas/${issuer.issuing_ca_id}/retire`, undefined, operator))
        .status,
    ).toBe(403);
    const retired = await api('POST', `/api/v1/intermediate-cas/${issuer.issuing_ca_id}/retire`);
    expect(retired.status).toBe(200);
    expect(retired.json()).toMatchObject({ status: 'retired', issuing: true });
    expect((await api('POST', `/api/v1/intermediate-cas/${issuer.issuing_ca_id}/retire`)).status).toBe(409);

    await expect(
      bus.request('issuance.v1.issue-certificate', { issuer_id: issuer.id, csr_pem: csr }),
    ).rejects.toMatchObject({ code: 'ca_not_active' });
    const info = await bus.request('issuance.v1.get-issuer-ca', { issuer_id: issuer.id });
    expect(info).toMatchObject({
      capabilities: { crl: true, ocsp: true },
      signature_algorithm: 'ecdsa-with-SHA256',
    });
  });

  it('signs a digest with the CA key without hashing it again', async () => {
    const info = await bus.request('issuance.v1.get-issuer-ca', { issuer_id: 'iss-local' });
    const data = Buffer.from('a TBSCertList, say');
    const digest = createHash('sha256').update(data).digest();
    const signed = await bus.request('issuance.v1.sign-digest', {
      issuer_id: 'iss-local',
      purpose: 'crl',
      digest_algorithm: 'sha256',
      digest_base64: digest.toString('base64'),
    });
    const publicKey = publicKeyObject(parseCertificate(info.ca_certificate_pem).publicKey);
    expect(verify('sha256', data, publicKey, Buffer.from(signed.signature_base64, 'base64'))).toBe(true);
    expect(signed.signature_algorithm).toBe(info.signature_algorithm);
    await expect(
      bus.request('issuance.v1.sign-digest', {
        issuer_id: 'iss-local',
        purpose: 'crl',
        digest_algorithm: 'sha384',
        digest_base64: createHash('sha384').update(data).digest('base64'),
      }),
    ).rejects.toMatchObject({ code: 'validation_failed' });
  });

  it('issues a delegated OCSP responder certificate', async () => {
    const responder = await bus.request('issuance.v1.issue-ocsp-responder', {
      issuer_id: 'iss-local',
      csr_pem: await csrFor('ocsp.example.com'),
    });
    const certificate = parseCertificate(responder.certificate_pem);
    expect(certificate.decoded.extendedKeyUsage).toEqual(['OCSPSigning']);
    expect(certificate.decoded.ocspNoCheck).toBe(true);
  });

  it('records a revocation once and publishes certificate.revoked through the outbox', async () => {
    const issued = (await bus.request('issuance.v1.issue-certificate', {
      csr_pem: await csrFor('revoke-me.example.com'),
    })) as IssuedCertificateDto;
    const first = await bus.request('issuance.v1.revoke-certificate', {
      issuer_id: 'iss-local',
      serial_hex: issued.serial_hex,
      reason: 'keyCompromise',
    });
    expect(first).toMatchObject({
      issuer_id: 'iss-local',
      serial_hex: issued.serial_hex,
      reason: 'keyCompromise',
      already_revoked: false,
    });
    const again = await bus.request('issuance.v1.revoke-certificate', {
      issuer_id: 'iss-local',
      serial_hex: issued.serial_hex,
      reason: 'superseded',
    });
    // The first reason and date stay; the answer says the serial was revoked before.
    expect(again).toEqual({ ...first, already_revoked: true });
    const events = await db.query(
      `SELECT envelope FROM issuance.outbox WHERE subject = 'issuance.v1.certificate.revoked'
         AND envelope->'data'->>'serial_hex' = $1`,
      [issued.serial_hex],
    );
    const { already_revoked: _answerOnly, ...event } = first;
    expect(events.rows.map((r) => r.envelope.data)).toEqual([event]);
    // The audit record commits in the same transaction as the revocation.
    {
      const audits = await db.query(
        `SELECT count(*)::int AS n FROM issuance.outbox WHERE subject = 'issuance.v1.audit.recorded'
           AND envelope->'data'->>'action' = 'certificate.revoked' AND envelope->'data'->>'resource_id' = $1`,
        [issued.serial_hex],
      );
      expect(audits.rows[0].n).toBe(1);
    }
    await expect(
      bus.request('issuance.v1.revoke-certificate', { issuer_id: 'iss-local', serial_hex: 'abcdef' }),
    ).rejects.toMatchObject({ code: 'certificate_not_found' });
  });

  it('releases a certificateHold with removeFromCRL and refuses it for a serial not on hold (400 certificate_not_on_hold)', async () => {
    const issued = (await bus.request('issuance.v1.issue-certificate', {
      csr_pem: await csrFor('hold-me.example.com'),
    })) as IssuedCertificateDto;
    const revoke = (reason: string) =>
      bus.request('issuance.v1.revoke-certificate', {
        issuer_id: 'iss-local',
        serial_hex: issued.serial_hex,
        reason: reason as 'certificateHold',
      });
    await expect(revoke('removeFromCRL')).rejects.toMatchObject({ code: 'certificate_not_on_hold' });
    await revoke('certificateHold');
    expect(await revoke('removeFromCRL')).toMatchObject({
      serial_hex: issued.serial_hex,
      reason: 'removeFromCRL',
    });
    await expect(revoke('removeFromCRL')).rejects.toMatchObject({ code: 'certificate_not_on_hold' });
    const stored = await db.query('SELECT reason FROM issuance.revocations WHERE serial_hex = $1', [
      issued.serial_hex,
    ]);
    expect(stored.rows).toEqual([]);
    const events = await db.query(
      `SELECT envelope->'data'->>'reason' AS reason FROM issuance.outbox
        WHERE subject = 'issuance.v1.certificate.revoked' AND envelope->'data'->>'serial_hex' = $1 ORDER BY seq`,
      [issued.serial_hex],
    );
    expect(events.rows.map((r) => r.reason)).toEqual(['certificateHold', 'removeFromCRL']);

    await revoke('keyCompromise');
    await expect(revoke('removeFromCRL')).rejects.toMatchObject({ code: 'certificate_not_on_hold' });
  });

  it('refuses a child CA under a CA whose pathLength is 0 (the seeded issuing CA)', async () => {
    const refused = await api('POST', '/api/v1/intermediate-cas', {
      issuer_id: 'iss-local',
      common_name: 'Too deep',
      parent_id: 'ca-local-issuing-1',
    });
    expect(refused.status).toBe(400);
    expect(refused.json()).toMatchObject({ details: { rule: 'issuer_invalid' } });
  });

  it('creates a sub-CA under an external root: CSR out, signed certificate in', async () => {
    const pending = await api('POST', '/api/v1/intermediate-cas', {
      issuer_id: 'iss-local',
      common_name: 'Sub CA',
      external: true,
    });
    expect(pending.status).toBe(201);
    const ca = pending.json() as CaCertificateDto;
    expect(ca).toMatchObject({ status: 'pending', certificate_pem: null });
    expect(ca.csr_pem).toContain('BEGIN CERTIFICATE REQUEST');
    // A pending CA cannot issue: `issuing` goes with its certificate, not with the request for one.
    const issuingAtOnce = await api('POST', '/api/v1/intermediate-cas', {
      issuer_id: 'iss-local',
      common_name: 'Sub CA too',
      external: true,
      issuing: true,
    });
    expect(issuingAtOnce.status).toBe(400);
    expect(issuingAtOnce.text).toContain('send issuing with POST /api/v1/intermediate-cas/{id}/certificate');
    const wrong = await api('POST', `/api/v1/intermediate-cas/${ca.id}/certificate`, {
      certificate_pem: (
        (await api('GET', '/api/v1/intermediate-cas/ca-local-root')).json() as CaCertificateDto
      ).certificate_pem,
    });
    expect(wrong.status).toBe(400);
    expect((await api('GET', '/api/v1/intermediate-cas/ca-nope')).status).toBe(404);
    expect((await api('GET', '/api/v1/intermediate-cas', undefined, operator)).status).toBe(403);
  });
});
