import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpsRaw } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CertificateDto, CertificateVersionDto, RevocationList } from '@certlane/contracts';
import { eventually, httpsRequest, HttpsResult, startTestSystem, TestSystem } from '@certlane/testing';
import { Client } from 'pg';

/** Binary-safe HTTPS GET (the DER CRL). */
function rawGet(url: string, ca: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const req = httpsRaw(url, { ca, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve(Buffer.concat(chunks)));
    });
    req.once('error', reject);
    req.end();
  });
}

/**
 * Spec 2.16's spelling of the reasons on every revoke route and in every output, and
 * removeFromCRL as RFC 5280 5.3.1 means it (ADR 0037), end to end through the gateway with the
 * real auth, issuance, revocation and gateway processes; the signed CRL and OCSP are read with
 * the real openssl.
 */
describe('revocation reasons (spec 2.16) and removeFromCRL', () => {
  let system: TestSystem;
  let db: Client;
  let dir: string;
  let admin: string;

  const api = (method: string, path: string, body?: unknown): Promise<HttpsResult> =>
    httpsRequest(`${system.services['api-gateway'].url}${path}`, {
      method,
      ca: system.ca,
      headers: {
        authorization: `Bearer ${admin}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const certificateOf = async (id: string) =>
    (await api('GET', `/api/v1/certificates/${id}`)).json() as CertificateDto;
  const openssl = (args: string[]) => {
    const result = spawnSync('openssl', args, { cwd: dir, encoding: 'utf8', timeout: 30_000 });
    return { output: `${result.stdout}\n${result.stderr}`, stdout: result.stdout };
  };

  /** Creates a certificate (issued at once: server key generation) and returns its version. */
  const issued = async (id: string, extra: Record<string, unknown> = {}): Promise<CertificateVersionDto> => {
    const created = await api('POST', '/api/v1/certificates', {
      id,
      common_name: `${id}.example.com`,
      ...extra,
    });
    expect(`${created.status} ${created.text}`).toMatch(/^201 /);
    const versions = (await api('GET', `/api/v1/certificates/${id}/versions`)).json() as {
      data: CertificateVersionDto[];
    };
    return versions.data[0];
  };

  /** The JSON CRL's reason for a serial, or undefined when it is not listed. */
  const jsonCrlReason = async (serial: string) => {
    const list = (await api('GET', '/api/v1/crl')).json() as RevocationList;
    return list.entries.find((entry) => entry.serial_number === serial)?.revocation_reason;
  };
  const auditDetails = async (action: string, resourceId: string) => {
    let details: Record<string, unknown> | undefined;
    await eventually(async () => {
      const { rows } = await db.query(
        'SELECT details FROM auth.audit_events WHERE action = $1 AND resource_id = $2 ORDER BY seq DESC',
        [action, resourceId],
      );
      details = rows[0]?.details;
      return details !== undefined;
    }, `an audit record ${action} for ${resourceId}`);
    return details as Record<string, unknown>;
  };
  const signedCrlText = async () => {
    writeFileSync(
      join(dir, 'now.crl'),
      await rawGet(`${system.services.revocation.url}/crl/iss-local.crl`, system.ca),
    );
    return openssl(['crl', '-inform', 'DER', '-in', 'now.crl', '-noout', '-text', '-CAfile', 'chain.pem']);
  };
  const ocspStatus = (serial: string) =>
    openssl([
      'ocsp',
      '-issuer',
      'issuing.pem',
      '-serial',
      `0x${serial}`,
      '-url',
      `${system.services.revocation.url}/ocsp/iss-local`,
      '-CAfile',
      'chain.pem',
    ]).output;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'certlane-reasons-'));
    system = await startTestSystem('reasons', ['auth', 'issuance', 'revocation', 'api-gateway'], {
      SERVICE_KEYGEN_MODE: 'server',
    });
    admin = system.env.SERVICE_AUTH_SECRET!;
    db = new Client({ connectionString: system.database.url });
    await db.connect();
  }, 90_000);

  afterAll(async () => {
    await db?.end();
    await system?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  describe('spec 2.16 spelling', () => {
    it('accepts caCompromise on the single revoke route and spells it so in the certificate, the JSON CRL and the audit record', async () => {
      const version = await issued('rr-single');
      const response = await api('POST', '/api/v1/certificates/rr-single/revoke', { reason: 'caCompromise' });
      expect(`${response.status} ${response.text}`).toMatch(/^200 /);
      expect(await certificateOf('rr-single')).toMatchObject({
        status: 'Revoked',
        revocation_reason: 'caCompromise',
      });
      await eventually(
        async () => (await jsonCrlReason(version.serial_number)) === 'caCompromise',
        'the JSON CRL lists it as caCompromise',
      );
      expect(await auditDetails('certificate.revoked', 'rr-single')).toMatchObject({
        reason: 'caCompromise',
      });
    });

    it('accepts aaCompromise on bulk revoke and spells it so in the certificate, the JSON CRL and the audit record', async () => {
      const version = await issued('rr-bulk');
      const response = await api('POST', '/api/v1/certificates/bulk-revoke', {
        certificate_ids: ['rr-bulk'],
        reason: 'aaCompromise',
      });
      expect(`${response.status} ${response.text}`).toMatch(/^200 /);
      expect(response.json()).toMatchObject({ total_revoked: 1, total_failed: 0 });
      expect(await certificateOf('rr-bulk')).toMatchObject({ revocation_reason: 'aaCompromise' });
      await eventually(
        async () => (await jsonCrlReason(version.serial_number)) === 'aaCompromise',
        'the JSON CRL lists it as aaCompromise',
      );
      expect(await auditDetails('certificate.bulk_revoked', 'bulk')).toMatchObject({
        reason: 'aaCompromise',
        criteria: { certificate_ids: ['rr-bulk'] },
      });
    });

    it('accepts caCompromise on EST bulk revoke and spells it so in the certificate, the JSON CRL and the audit record', async () => {
      const version = await issued('rr-est', { source: 'EST' });
      const response = await api('POST', '/api/v1/est/certificates/bulk-revoke', {
        certificate_ids: ['rr-est'],
        reason: 'caCompromise',
      });
      expect(`${response.status} ${response.text}`).toMatch(/^200 /);
      expect(response.json()).toMatchObject({ total_revoked: 1 });
      expect(await certificateOf('rr-est')).toMatchObject({ revocation_reason: 'caCompromise' });
      await eventually(
        async () => (await jsonCrlReason(version.serial_number)) === 'caCompromise',
        'the JSON CRL lists it as caCompromise',
      );
      expect(await auditDetails('est_bulk_revoke', 'bulk')).toMatchObject({ reason: 'caCompromise' });
    });

    it('reads the old ASN.1 spelling cACompromise as an alias and answers and stores the spec spelling', async () => {
      const version = await issued('rr-alias');
      const response = await api('POST', '/api/v1/certificates/rr-alias/revoke', { reason: 'cACompromise' });
      expect(response.status).toBe(200);
      expect(await certificateOf('rr-alias')).toMatchObject({ revocation_reason: 'caCompromise' });
      await eventually(
        async () => (await jsonCrlReason(version.serial_number)) === 'caCompromise',
        'the JSON CRL lists it as caCompromise',
      );
      const { rows } = await db.query('SELECT reason FROM revocation.revocations WHERE serial_hex = $1', [
        version.serial_number,
      ]);
      expect(rows).toEqual([{ reason: 'caCompromise' }]);
    });

    it('still refuses an unknown reason with 400 on every route', async () => {
      await issued('rr-unknown');
      for (const [path, body] of [
        ['/api/v1/certificates/rr-unknown/revoke', { reason: 'CaCompromise' }],
        ['/api/v1/certificates/bulk-revoke', { certificate_ids: ['rr-unknown'], reason: 'lost' }],
        ['/api/v1/est/certificates/bulk-revoke', { certificate_ids: ['rr-unknown'], reason: 'lost' }],
      ] as const) {
        const response = await api('POST', path, body);
        expect({ path, status: response.status, code: (response.json() as { code: string }).code }).toEqual({
          path,
          status: 400,
          code: 'validation_failed',
        });
      }
    });

    it('refuses a body that is not JSON with 415 and leaves the certificate as it was (it was read as no body: revoked as unspecified)', async () => {
      await issued('rr-not-json');
      for (const [contentType, body] of [
        ['text/plain', '{"reason":"certificateHold"}'],
        ['application/x-www-form-urlencoded', 'reason=certificateHold'],
      ]) {
        const response = await httpsRequest(
          `${system.services['api-gateway'].url}/api/v1/certificates/rr-not-json/revoke`,
          {
            method: 'POST',
            ca: system.ca,
            headers: { authorization: `Bearer ${admin}`, 'content-type': contentType },
            body,
          },
        );
        expect([contentType, response.status, (response.json() as { code: string }).code]).toEqual([
          contentType,
          415,
          'unsupported_media_type',
        ]);
      }
      expect((await certificateOf('rr-not-json')).status).toBe('Active');
      // No body at all still reads as {}: revoked with the default reason.
      expect((await api('POST', '/api/v1/certificates/rr-not-json/revoke')).status).toBe(200);
      expect(await certificateOf('rr-not-json')).toMatchObject({
        status: 'Revoked',
        revocation_reason: 'unspecified',
      });
    });
  });

  describe('removeFromCRL (RFC 5280 5.3.1)', () => {
    let held: CertificateVersionDto;

    it('puts a certificate on hold: Revoked with certificateHold, in the signed CRL and revoked in OCSP', async () => {
      held = await issued('rr-hold');
      const response = await api('POST', '/api/v1/certificates/rr-hold/revoke', {
        reason: 'certificateHold',
      });
      expect(response.status).toBe(200);
      expect(await certificateOf('rr-hold')).toMatchObject({
        status: 'Revoked',
        revocation_reason: 'certificateHold',
      });
      const [issuing] =
        held.chain_pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n?/g) ?? [];
      writeFileSync(join(dir, 'issuing.pem'), issuing ?? '');
      writeFileSync(join(dir, 'chain.pem'), held.chain_pem);
      await eventually(
        async () => (await signedCrlText()).stdout.toUpperCase().includes(held.serial_number.toUpperCase()),
        'the held serial in the signed CRL',
        10_000,
      );
      expect((await signedCrlText()).stdout).toMatch(
        new RegExp(
          `Serial Number: ${held.serial_number.toUpperCase()}[\\s\\S]*?CRL Reason Code:\\s+Certificate Hold`,
        ),
      );
      await eventually(
        async () => ocspStatus(held.serial_number).includes(`0x${held.serial_number}: revoked`),
        'OCSP revoked',
        10_000,
      );
    });

    it('un-revokes a held certificate everywhere: inventory, JSON CRL, signed CRL and OCSP', async () => {
      const response = await api('POST', '/api/v1/certificates/rr-hold/revoke', { reason: 'removeFromCRL' });
      expect(`${response.status} ${response.text}`).toMatch(/^200 /);
      expect(response.json()).toMatchObject({ status: 'released' });
      expect(await certificateOf('rr-hold')).toMatchObject({
        status: 'Active',
        revoked_at: null,
        revocation_reason: null,
      });
      const list = await api('GET', '/api/v1/certificates?status=Revoked&per_page=500');
      expect((list.json() as { data: CertificateDto[] }).data.map((c) => c.id)).not.toContain('rr-hold');

      await eventually(
        async () => (await jsonCrlReason(held.serial_number)) === undefined,
        'the JSON CRL no longer lists it',
      );
      await eventually(
        async () => !(await signedCrlText()).stdout.toUpperCase().includes(held.serial_number.toUpperCase()),
        'the next signed CRL omits it',
        10_000,
      );
      const crl = await signedCrlText();
      expect(crl.output).toContain('verify OK');
      expect(crl.stdout).not.toMatch(/Remove From CRL/i);
      await eventually(
        async () => ocspStatus(held.serial_number).includes(`0x${held.serial_number}: good`),
        'OCSP good',
        10_000,
      );
      expect(ocspStatus(held.serial_number)).toContain('Response verify OK');

      const { rows } = await db.query(
        `SELECT (SELECT count(*)::int FROM issuance.revocations WHERE serial_hex = $1) AS issuance,
                (SELECT count(*)::int FROM revocation.revocations WHERE serial_hex = $1) AS revocation`,
        [held.serial_number],
      );
      expect(rows).toEqual([{ issuance: 0, revocation: 0 }]);
      expect(await auditDetails('certificate.hold_released', 'rr-hold')).toMatchObject({
        reason: 'removeFromCRL',
        from: 'Revoked',
        to: 'Active',
        released: [{ issuer_id: 'iss-local', serial_number: held.serial_number }],
      });
    });

    it('can hold a released certificate again', async () => {
      expect(
        (await api('POST', '/api/v1/certificates/rr-hold/revoke', { reason: 'certificateHold' })).status,
      ).toBe(200);
      expect(await certificateOf('rr-hold')).toMatchObject({
        status: 'Revoked',
        revocation_reason: 'certificateHold',
      });
      await eventually(
        async () => (await jsonCrlReason(held.serial_number)) === 'certificateHold',
        'the JSON CRL lists the new hold',
      );
    });

    it('refuses removeFromCRL with 400 certificate_not_on_hold on a certificate never revoked or revoked for good', async () => {
      const fresh = await issued('rr-fresh');
      const never = await api('POST', '/api/v1/certificates/rr-fresh/revoke', { reason: 'removeFromCRL' });
      expect(never.status).toBe(400);
      expect(never.json()).toMatchObject({ code: 'certificate_not_on_hold' });
      expect(await certificateOf('rr-fresh')).toMatchObject({ status: 'Active', revocation_reason: null });

      const final = await api('POST', '/api/v1/certificates/rr-single/revoke', { reason: 'removeFromCRL' });
      expect(final.status).toBe(400);
      expect(final.json()).toMatchObject({
        code: 'certificate_not_on_hold',
        details: { revocation_reason: 'caCompromise' },
      });
      expect(await certificateOf('rr-single')).toMatchObject({
        status: 'Revoked',
        revocation_reason: 'caCompromise',
      });
      const { rows } = await db.query('SELECT serial_hex FROM issuance.revocations WHERE serial_hex = $1', [
        fresh.serial_number,
      ]);
      expect(rows).toEqual([]);
    });

    it('refuses removeFromCRL on bulk and EST bulk revoke with 400: a hold is released one certificate at a time', async () => {
      for (const path of ['/api/v1/certificates/bulk-revoke', '/api/v1/est/certificates/bulk-revoke']) {
        const response = await api('POST', path, { certificate_ids: ['rr-hold'], reason: 'removeFromCRL' });
        expect({ path, status: response.status, code: (response.json() as { code: string }).code }).toEqual({
          path,
          status: 400,
          code: 'validation_failed',
        });
      }
      expect(await certificateOf('rr-hold')).toMatchObject({ revocation_reason: 'certificateHold' });
    });

    it('RFC 5280 5.3.1: a held certificate revoked for keyCompromise is revoked for good everywhere, keeping the hold date, and can no longer be released', async () => {
      const before = await certificateOf('rr-hold');
      const response = await api('POST', '/api/v1/certificates/rr-hold/revoke', { reason: 'keyCompromise' });
      expect(response.status).toBe(200);
      expect(await certificateOf('rr-hold')).toMatchObject({
        status: 'Revoked',
        revocation_reason: 'keyCompromise',
        revoked_at: before.revoked_at,
      });
      await eventually(
        async () => (await jsonCrlReason(held.serial_number)) === 'keyCompromise',
        'the JSON CRL lists it as keyCompromise',
      );
      await eventually(
        async () =>
          new RegExp(
            `Serial Number: ${held.serial_number.toUpperCase()}[\\s\\S]*?CRL Reason Code:\\s+Key Compromise`,
          ).test((await signedCrlText()).stdout),
        'the signed CRL gives Key Compromise',
        10_000,
      );
      await eventually(
        async () => /Reason: keyCompromise/.test(ocspStatus(held.serial_number)),
        'OCSP revoked for keyCompromise',
        10_000,
      );
      const { rows } = await db.query(
        `SELECT (SELECT reason FROM issuance.revocations WHERE serial_hex = $1) AS issuance,
                (SELECT reason FROM revocation.revocations WHERE serial_hex = $1) AS revocation`,
        [held.serial_number],
      );
      expect(rows).toEqual([{ issuance: 'keyCompromise', revocation: 'keyCompromise' }]);
      const release = await api('POST', '/api/v1/certificates/rr-hold/revoke', { reason: 'removeFromCRL' });
      expect([release.status, (release.json() as { code: string }).code]).toEqual([
        400,
        'certificate_not_on_hold',
      ]);
      // A final reason is not replaced by another one.
      expect(
        (await api('POST', '/api/v1/certificates/rr-hold/revoke', { reason: 'superseded' })).status,
      ).toBe(200);
      expect(await certificateOf('rr-hold')).toMatchObject({ revocation_reason: 'keyCompromise' });
    });
  });

  describe('spec 3: revoking an Expired certificate', () => {
    /** Issues a certificate and leaves it as the expiry loop does once its only version has run out. */
    const expired = async (id: string): Promise<CertificateVersionDto> => {
      const version = await issued(id);
      await db.query(
        `UPDATE issuance.certificate_versions SET not_before = now() - interval '2 days',
                not_after = now() - interval '1 day' WHERE id = $1`,
        [version.id],
      );
      await db.query(
        `UPDATE issuance.certificates SET status = 'Expired', expires_at = now() - interval '1 day' WHERE id = $1`,
        [id],
      );
      expect((await certificateOf(id)).status).toBe('Expired');
      return version;
    };

    it('bulk revoke reaches the issuer for an Expired certificate too', async () => {
      const version = await expired('rr-expired-bulk');
      const response = await api('POST', '/api/v1/certificates/bulk-revoke', {
        certificate_ids: ['rr-expired-bulk'],
        reason: 'keyCompromise',
      });
      expect(response.json()).toMatchObject({ total_revoked: 1, total_failed: 0 });
      await eventually(
        async () => (await jsonCrlReason(version.serial_number)) === 'keyCompromise',
        'the expired serial in the JSON CRL',
        10_000,
      );
    });

    it('reaches the issuer: keyCompromise of an Expired certificate is in the JSON CRL, the signed CRL and OCSP', async () => {
      const version = await expired('rr-expired');
      const revoked = await api('POST', '/api/v1/certificates/rr-expired/revoke', {
        reason: 'keyCompromise',
      });
      expect(revoked.status).toBe(200);
      expect(await certificateOf('rr-expired')).toMatchObject({
        status: 'Revoked',
        revocation_reason: 'keyCompromise',
      });
      await eventually(
        async () => (await jsonCrlReason(version.serial_number)) === 'keyCompromise',
        'the expired serial in the JSON CRL',
        10_000,
      );
      const [issuing] =
        version.chain_pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n?/g) ?? [];
      writeFileSync(join(dir, 'issuing.pem'), issuing ?? '');
      writeFileSync(join(dir, 'chain.pem'), version.chain_pem);
      await eventually(
        async () =>
          new RegExp(
            `Serial Number: ${version.serial_number.toUpperCase()}[\\s\\S]*?CRL Reason Code:\\s+Key Compromise`,
          ).test((await signedCrlText()).stdout),
        'the expired serial in the signed CRL with keyCompromise',
        10_000,
      );
      await eventually(
        async () => ocspStatus(version.serial_number).includes(`0x${version.serial_number}: revoked`),
        'OCSP revoked',
        10_000,
      );
    });
  });

  describe('ADR 0046: a certificate of a CA Certlane has no connector for', () => {
    it('is revoked here, and the answer and the audit record say its CA was not told', async () => {
      const created = await api('POST', '/api/v1/issuers', {
        name: 'Remote DigiCert',
        type: 'digicert',
        config: { api_key: 'dc-remote-key-0123456789', product_name_id: 'ssl_plus' },
      });
      expect(created.status).toBe(201);
      const issuerId = (created.json() as { id: string }).id;
      openssl(
        ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'].concat([
          '-keyout',
          'remote.key',
          '-out',
          'remote.pem',
          '-subj',
          '/CN=remote.example.com',
          '-days',
          '30',
        ]),
      );
      const imported = await api('POST', '/api/v1/certificates', {
        id: 'rr-remote',
        certificate_pem: readFileSync(join(dir, 'remote.pem'), 'utf8'),
        issuer_id: issuerId,
      });
      expect(`${imported.status} ${imported.text}`).toMatch(/^201 /);
      const revoked = await api('POST', '/api/v1/certificates/rr-remote/revoke', { reason: 'keyCompromise' });
      expect(revoked.status).toBe(200);
      expect(revoked.json()).toEqual({
        status: 'revoked',
        message: expect.stringContaining(
          `cannot revoke at the CA of issuer ${issuerId}, so that CA was not told`,
        ),
      });
      expect(await auditDetails('certificate.revoked', 'rr-remote')).toMatchObject({
        issuer: [expect.objectContaining({ issuer_id: issuerId, outcome: 'recorded_only' })],
      });

      // In bulk too: revoked, and named as revoked here only, in the answer and the audit record.
      openssl(
        ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'].concat([
          '-keyout',
          'remote-bulk.key',
          '-out',
          'remote-bulk.pem',
          '-subj',
          '/CN=remote-bulk.example.com',
          '-days',
          '30',
        ]),
      );
      const second = await api('POST', '/api/v1/certificates', {
        id: 'rr-remote-bulk',
        certificate_pem: readFileSync(join(dir, 'remote-bulk.pem'), 'utf8'),
        issuer_id: issuerId,
      });
      expect(second.status).toBe(201);
      const bulk = await api('POST', '/api/v1/certificates/bulk-revoke', {
        certificate_ids: ['rr-remote-bulk'],
        reason: 'superseded',
      });
      expect(bulk.status).toBe(200);
      expect(bulk.json()).toMatchObject({
        total_revoked: 1,
        total_failed: 0,
        total_recorded_only: 1,
        recorded_only: [
          {
            certificate_id: 'rr-remote-bulk',
            message: expect.stringContaining(`issuer ${issuerId} cannot revoke at its CA`),
          },
        ],
        recorded_only_truncated: false,
      });
      // Earlier bulk calls of this file audit under the same resource id: wait for this call's record.
      await eventually(async () => {
        const { rows } = await db.query(
          `SELECT details FROM auth.audit_events WHERE action = 'certificate.bulk_revoked'
             AND details->'recorded_only_ids' ? 'rr-remote-bulk'`,
        );
        return rows.length === 1;
      }, 'the bulk revoke audit record naming rr-remote-bulk as recorded only');
      const { rows } = await db.query(
        `SELECT details FROM auth.audit_events WHERE action = 'certificate.bulk_revoked'
           AND details->'recorded_only_ids' ? 'rr-remote-bulk'`,
      );
      expect(rows[0].details).toMatchObject({ total_revoked: 1, total_recorded_only: 1 });
    });
  });
});
