import { randomUUID } from 'node:crypto';
import { request as httpsRaw } from 'node:https';
import { CertificateRevoked, EventEnvelope } from '@certlane/contracts';
import { NatsBus } from '@certlane/platform';
import { ocspErrorResponse } from '@certlane/pki';
import { eventually, startServiceProcess, startTestSystem, TestSystem, testNatsUrl } from '@certlane/testing';
import { Client } from 'pg';

const SUBJECT = 'issuance.v1.certificate.revoked' as const;

function envelope(data: CertificateRevoked, id = randomUUID()): EventEnvelope<CertificateRevoked> {
  return { id, subject: SUBJECT, occurred_at: new Date().toISOString(), data };
}

function post(
  url: string,
  ca: string,
  body: Buffer,
  contentType: string,
): Promise<{ status: number; body: Buffer; type?: string }> {
  return new Promise((resolve, reject) => {
    const req = httpsRaw(
      url,
      { method: 'POST', ca, agent: false, headers: { 'content-type': contentType } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            body: Buffer.concat(chunks),
            type: res.headers['content-type'],
          }),
        );
      },
    );
    req.once('error', reject);
    req.end(body);
  });
}

/**
 * The revocation service against real NATS and Postgres, with a real producer: events published
 * on JetStream with NatsBus are stored once (inbox and primary key), survive a restart, and are
 * listed by revocation.v1.list-revocations. The CRL/OCSP side needs the issuance service's CA
 * (revocation-interop.int-spec.ts).
 */
describe('revocation service: certificate.revoked consumer', () => {
  let system: TestSystem;
  let bus: NatsBus;
  let db: Client;

  const rows = async () =>
    (
      await db.query(
        'SELECT issuer_id, serial_hex, reason, revoked_at, event_id FROM revocation.revocations ORDER BY serial_hex',
      )
    ).rows as { issuer_id: string; serial_hex: string; reason: string; revoked_at: Date; event_id: string }[];

  beforeAll(async () => {
    system = await startTestSystem('revconsumer', ['revocation']);
    bus = await NatsBus.connect({
      servers: [testNatsUrl()],
      name: 'revocation-consumer-test',
      requestTimeoutMs: 5000,
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

  const first: CertificateRevoked = {
    issuer_id: 'iss-local',
    serial_hex: '4a11',
    reason: 'keyCompromise',
    revoked_at: '2026-01-02T03:04:05.000Z',
    certificate_id: 'crt-1',
  };

  it('stores a published revocation once, whatever is delivered twice', async () => {
    const event = envelope(first);
    await bus.publish(SUBJECT, event);
    await bus.publish(SUBJECT, event);
    // Same certificate, another event id: the primary key keeps the first.
    await bus.publish(SUBJECT, envelope({ ...first, reason: 'superseded' }));
    // The old ASN.1 spelling, as events published before ADR 0037 carry it: stored as spec 2.16 spells it.
    await bus.publish(
      SUBJECT,
      envelope({ ...first, serial_hex: '4b22', reason: 'cACompromise' } as unknown as CertificateRevoked),
    );

    await eventually(async () => (await rows()).length === 2, 'two revocations stored');
    // Let every event be handled: the marker is the last one published.
    const marker = envelope({ ...first, serial_hex: '4c33', reason: 'unspecified' });
    await bus.publish(SUBJECT, marker);
    await eventually(async () => (await rows()).length === 3, 'the marker stored');

    const stored = await rows();
    expect(stored.map((r) => [r.serial_hex, r.reason])).toEqual([
      ['4a11', 'keyCompromise'],
      ['4b22', 'caCompromise'],
      ['4c33', 'unspecified'],
    ]);
    expect(stored[0].event_id).toBe(event.id);
    expect(stored[0].revoked_at.toISOString()).toBe(first.revoked_at);
    const inbox = await db.query('SELECT event_id FROM revocation.inbox WHERE event_id = $1', [event.id]);
    expect(inbox.rowCount).toBe(1);
  });

  it('acknowledges and drops an invalid event instead of storing it or blocking the stream', async () => {
    await bus.publish(SUBJECT, envelope({ ...first, serial_hex: 'NOT-HEX' }));
    await bus.publish(SUBJECT, envelope({ ...first, serial_hex: '4d44' }));
    await eventually(
      async () => (await rows()).some((r) => r.serial_hex === '4d44'),
      'the valid event stored',
    );
    expect((await rows()).map((r) => r.serial_hex)).toEqual(['4a11', '4b22', '4c33', '4d44']);
  });

  it('lists revocations over revocation.v1.list-revocations in the spec 4.4 shape', async () => {
    const list = await bus.request('revocation.v1.list-revocations', { issuer_id: undefined, limit: 2 });
    expect(list.total).toBe(4);
    expect(list.version).toBe(0);
    expect(list.entries).toHaveLength(2);
    expect(list.entries[0]).toEqual({
      issuer_id: 'iss-local',
      serial_number: expect.stringMatching(/^4[a-d]/),
      revocation_date: first.revoked_at,
      revocation_reason: expect.any(String),
    });
  });

  it('answers a malformed OCSP POST with malformedRequest and refuses other media types', async () => {
    const url = `${system.services.revocation.url}/ocsp/iss-local`;
    const malformed = await post(url, system.ca, Buffer.from('not DER'), 'application/ocsp-request');
    expect(malformed.status).toBe(200);
    expect(malformed.type).toBe('application/ocsp-response');
    expect(malformed.body.equals(ocspErrorResponse('malformedRequest'))).toBe(true);

    const json = await post(url, system.ca, Buffer.from('{}'), 'application/json');
    expect(json.status).toBe(415);

    const huge = await post(url, system.ca, Buffer.alloc(64 * 1024, 0x30), 'application/ocsp-request');
    expect(huge.status).toBe(413);
  });

  it('keeps its state across a restart and resumes consuming', async () => {
    await system.services.revocation.stop();
    // Published while the service is down: delivered when it is back (durable consumer).
    await bus.publish(SUBJECT, envelope({ ...first, serial_hex: '4e55', reason: 'superseded' }));
    await bus.publish(SUBJECT, envelope({ ...first, reason: 'affiliationChanged' }));
    system.services.revocation = await startServiceProcess('revocation', system.env, { ca: system.ca });

    await eventually(
      async () => (await rows()).some((r) => r.serial_hex === '4e55'),
      'the event sent while down',
    );
    const stored = await rows();
    expect(stored.map((r) => [r.serial_hex, r.reason])).toEqual([
      ['4a11', 'keyCompromise'],
      ['4b22', 'caCompromise'],
      ['4c33', 'unspecified'],
      ['4d44', 'keyCompromise'],
      ['4e55', 'superseded'],
    ]);
  }, 60_000);

  it('drops a certificateHold on removeFromCRL (RFC 5280 5.3.1) and leaves a revocation for another reason', async () => {
    await bus.publish(SUBJECT, envelope({ ...first, serial_hex: '4f66', reason: 'certificateHold' }));
    await eventually(async () => (await rows()).some((r) => r.serial_hex === '4f66'), 'the hold stored');

    await bus.publish(SUBJECT, envelope({ ...first, serial_hex: '4f66', reason: 'removeFromCRL' }));
    await bus.publish(SUBJECT, envelope({ ...first, serial_hex: '4a11', reason: 'removeFromCRL' }));
    // Held again after the release: recorded afresh (the consumer applies them in order).
    await bus.publish(SUBJECT, envelope({ ...first, serial_hex: '4f77', reason: 'certificateHold' }));
    await bus.publish(SUBJECT, envelope({ ...first, serial_hex: '4f77', reason: 'removeFromCRL' }));
    await bus.publish(SUBJECT, envelope({ ...first, serial_hex: '4f77', reason: 'certificateHold' }));
    const marker = envelope({ ...first, serial_hex: '4f88', reason: 'unspecified' });
    await bus.publish(SUBJECT, marker);
    await eventually(async () => (await rows()).some((r) => r.serial_hex === '4f88'), 'the marker stored');

    const stored = (await rows()).map((r) => [r.serial_hex, r.reason]);
    expect(stored).not.toContainEqual(['4f66', expect.anything()]);
    expect(stored).toContainEqual(['4a11', 'keyCompromise']);
    expect(stored).toContainEqual(['4f77', 'certificateHold']);
    expect(stored.filter(([, reason]) => reason === 'removeFromCRL')).toEqual([]);
  });
});
