import { randomUUID } from 'node:crypto';
import {
  AuditChainVerification,
  AuditEventDto,
  auditEventHash,
  chainAuditEvents,
  Page,
  UnchainedAuditEvent,
} from '@certlane/contracts';
import { eventually, httpsRequest, startTestSystem, TestSystem, testNatsUrl } from '@certlane/testing';
import { connect, JSONCodec, NatsConnection } from 'nats';
import { Client } from 'pg';

/**
 * Appends events to the chain the way the auth service does (same lock, same hashing), so
 * tests can lay out precise data next to what the services record.
 */
async function appendEvents(db: Client, events: UnchainedAuditEvent[]): Promise<AuditEventDto[]> {
  await db.query('BEGIN');
  try {
    await db.query('SELECT pg_advisory_xact_lock(hashtext($1))', ['certlane:auth:audit-chain']);
    const { rows } = await db.query<{ seq: string; hash: string }>(
      'SELECT seq, hash FROM auth.audit_events ORDER BY seq DESC LIMIT 1',
    );
    const chained = chainAuditEvents(rows[0] && { seq: Number(rows[0].seq), hash: rows[0].hash }, events);
    const column = (key: keyof AuditEventDto) =>
      chained.map((e) => (key === 'details' ? JSON.stringify(e.details ?? {}) : (e[key] ?? null)));
    await db.query(
      `INSERT INTO auth.audit_events (seq, event_id, service, action, event_category, actor_id, resource_type,
         resource_id, outcome, request_id, details, occurred_at, recorded_at, prev_hash, hash)
       SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
         $8::text[], $9::text[], $10::text[], $11::jsonb[], $12::timestamptz[], $13::timestamptz[], $14::text[], $15::text[])`,
      (
        [
          'seq',
          'event_id',
          'service',
          'action',
          'event_category',
          'actor_id',
          'resource_type',
          'resource_id',
          'outcome',
          'request_id',
          'details',
          'occurred_at',
          'recorded_at',
          'prev_hash',
          'hash',
        ] as const
      ).map(column),
    );
    await db.query('COMMIT');
    return chained;
  } catch (error) {
    await db.query('ROLLBACK');
    throw error;
  }
}

const at = (iso: string) => new Date(iso).toISOString();

/** Synthetic events in January 2026, far from the events the running services record today. */
const SYNTHETIC: UnchainedAuditEvent[] = [
  ['2026-01-01T10:00:00Z', 'list-alice', 'config', 'renewal_policy.created', 'renewal_policy', 'rp-a'],
  ['2026-01-02T10:00:00Z', 'list-bob', 'auth', 'auth.api_key_created', 'api_key', 'key-b'],
  ['2026-01-03T10:00:00Z', 'list-alice', 'cert_lifecycle', 'certificate.renewed', 'certificate', 'cert-1'],
  ['2026-01-04T10:00:00Z', 'list-alice', 'config', 'renewal_policy.updated', 'renewal_policy', 'rp-a'],
  ['2026-01-05T10:00:00Z', 'list-bob', 'cert_lifecycle', 'certificate.renewed', 'certificate', 'cert-2'],
  ['2026-01-06T10:00:00Z', 'list-alice', 'auth', 'auth.role_created', 'role', 'r-x'],
].map(([time, actor, category, action, resourceType, resourceId]) => ({
  event_id: randomUUID(),
  service: 'notifier',
  action,
  event_category: category as UnchainedAuditEvent['event_category'],
  actor_id: actor,
  resource_type: resourceType,
  resource_id: resourceId,
  outcome: 'success',
  request_id: `req-${actor}-${time}`,
  details: { at: time },
  occurred_at: at(time),
  recorded_at: at(time),
}));

/** The audit store (spec 6.1, 4.10) through the real gateway, auth and issuance processes. */
describe('audit store, list, export and verify', () => {
  let system: TestSystem;
  let db: Client;
  let nats: NatsConnection;
  let auditorKey: string;
  let viewerKey: string;

  /** `key`: undefined for the SERVICE_AUTH_SECRET admin, null for no credentials. */
  const api = (path: string, key?: string | null, method = 'GET', body?: unknown) => {
    const bearer = key === undefined ? system.env.SERVICE_AUTH_SECRET : key;
    return httpsRequest(`${system.services['api-gateway'].url}${path}`, {
      method,
      ca: system.ca,
      headers: {
        ...(bearer ? { authorization: `Bearer ${bearer}` } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  };
  const list = async (query: string) => {
    const response = await api(`/api/v1/audit?${query}`);
    expect(response.status).toBe(200);
    return response.json() as Page<AuditEventDto>;
  };
  const lines = (text: string) =>
    text
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as AuditEventDto);
  const count = async () =>
    (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM auth.audit_events')).rows[0].n;
  const publishAudit = async (service: string, envelope: object, msgId: string) =>
    nats
      .jetstream()
      .publish(
        `${system.env.SERVICE_NATS_NAMESPACE}.${service}.v1.audit.recorded`,
        JSONCodec().encode(envelope),
        {
          msgID: msgId,
        },
      );

  beforeAll(async () => {
    system = await startTestSystem('audit', ['auth', 'issuance', 'api-gateway']);
    db = new Client({ connectionString: system.database.url });
    await db.connect();
    nats = await connect({ servers: testNatsUrl() });
    const keyWith = async (role: string) => {
      const created = await api('/api/v1/auth/api-keys', undefined, 'POST', {
        name: `audit-${role}`,
        role_ids: [role],
      });
      expect(created.status).toBe(201);
      return (created.json() as { key: string }).key;
    };
    auditorKey = await keyWith('r-auditor');
    viewerKey = await keyWith('r-viewer');
    // The baseline seed (issuer iss-local) and the two key creations are audited; wait until the
    // store has all three, then add the synthetic ones.
    await eventually(async () => (await count()) === 3, 'the seed and key creations in the audit store');
    await appendEvents(db, SYNTHETIC);
  }, 60_000);

  afterAll(async () => {
    await nats?.close();
    await db?.end();
    await system?.stop();
  });

  describe('append-only table', () => {
    it.each([
      ['UPDATE', "UPDATE auth.audit_events SET actor_id = 'mallory'"],
      ['UPDATE that matches no row', "UPDATE auth.audit_events SET actor_id = 'mallory' WHERE false"],
      ['DELETE', 'DELETE FROM auth.audit_events WHERE seq = 1'],
      ['TRUNCATE', 'TRUNCATE auth.audit_events'],
    ])('refuses %s, even to a superuser', async (_what, sql) => {
      const before = await count();
      await expect(db.query(sql)).rejects.toThrow(
        /audit_events is append-only: (UPDATE|DELETE|TRUNCATE) is not allowed/,
      );
      expect(await count()).toBe(before);
    });
  });

  describe('GET /api/v1/audit', () => {
    it('lists newest first in the pagination envelope', async () => {
      const page = await list('actor_id=list-alice');
      expect(page).toMatchObject({ total: 4, page: 1, per_page: 50 });
      expect(page.data.map((e) => e.resource_id)).toEqual(['r-x', 'rp-a', 'cert-1', 'rp-a']);
      expect(page.data[0]).toEqual(
        expect.objectContaining({ service: 'notifier', seq: 9, request_id: expect.any(String) }),
      );
      const second = await list('actor_id=list-alice&per_page=3&page=2');
      expect(second).toMatchObject({
        total: 4,
        page: 2,
        per_page: 3,
        data: [{ resource_id: 'rp-a', action: 'renewal_policy.created' }],
      });
    });

    it.each([
      ['category=cert_lifecycle&service=x', null],
      ['category=cert_lifecycle', ['cert-2', 'cert-1']],
      ['category=config,cert_lifecycle&actor_id=list-alice', ['rp-a', 'cert-1', 'rp-a']],
      ['action=certificate.renewed', ['cert-2', 'cert-1']],
      ['resource_type=renewal_policy&resource_id=rp-a', ['rp-a', 'rp-a']],
      ['from=2026-01-02T10:00:00Z&to=2026-01-04T10:00:00Z', ['cert-1', 'key-b']],
      ['actor_id=nobody', []],
    ])('filters: %s', async (query, expected) => {
      if (expected === null) {
        // Unknown query parameters are refused, like everywhere else.
        expect((await api(`/api/v1/audit?${query}`)).status).toBe(400);
        return;
      }
      const page = await list(query);
      expect(page.data.map((e) => e.resource_id)).toEqual(expected);
      expect(page.total).toBe(expected.length);
    });

    it('refuses an unknown category and a malformed time with 400', async () => {
      for (const query of ['category=security', 'from=yesterday', 'per_page=501']) {
        const response = await api(`/api/v1/audit?${query}`);
        expect([query, response.status, (response.json() as { code: string }).code]).toEqual([
          query,
          400,
          'validation_failed',
        ]);
      }
    });

    it('lets an auditor read and refuses a viewer', async () => {
      expect((await api('/api/v1/audit', auditorKey)).status).toBe(200);
      expect((await api('/api/v1/audit', viewerKey)).status).toBe(403);
      expect((await api('/api/v1/audit', null)).status).toBe(401);
    });
  });

  describe('ingestion', () => {
    const record = (resourceId: string) => ({
      action: 'notification.requeued',
      event_category: 'cert_lifecycle',
      actor_id: 'ingest-test',
      resource_type: 'notification',
      resource_id: resourceId,
      outcome: 'success',
      request_id: `req-${resourceId}`,
      details: { b: 2, a: 1 },
    });

    it('stores a redelivered envelope once, with the envelope time as occurred_at', async () => {
      const twice = {
        id: randomUUID(),
        subject: 'notifier.v1.audit.recorded',
        occurred_at: '2026-02-01T08:00:00.123Z',
        data: record('n-1'),
      };
      const marker = {
        id: randomUUID(),
        subject: 'notifier.v1.audit.recorded',
        occurred_at: '2026-02-01T08:00:01.000Z',
        data: record('n-2'),
      };
      // Different JetStream message ids: the stream keeps both copies, as after a relay crash.
      await publishAudit('notifier', twice, randomUUID());
      await publishAudit('notifier', twice, randomUUID());
      await publishAudit('notifier', marker, randomUUID());
      // One consumer per subject handles events in order: once the marker is in, both copies were seen.
      await eventually(async () => (await list('resource_id=n-2')).total === 1, 'the marker event');
      const stored = await list('actor_id=ingest-test');
      expect(stored.data.map((e) => [e.resource_id, e.event_id])).toEqual([
        ['n-2', marker.id],
        ['n-1', twice.id],
      ]);
      expect(stored.data[1]).toMatchObject({
        service: 'notifier',
        occurred_at: '2026-02-01T08:00:00.123Z',
        details: { a: 1, b: 2 },
        request_id: 'req-n-1',
      });
    });

    it('stores an invalid record as audit.record_rejected and keeps consuming', async () => {
      const invalid = {
        id: randomUUID(),
        subject: 'revocation.v1.audit.recorded',
        occurred_at: '2026-02-02T00:00:00.000Z',
        data: { ...record('n-3'), outcome: 'maybe' },
      };
      const next = {
        id: randomUUID(),
        subject: 'revocation.v1.audit.recorded',
        occurred_at: '2026-02-02T00:00:01.000Z',
        data: record('n-4'),
      };
      await publishAudit('revocation', invalid, invalid.id);
      await publishAudit('revocation', next, next.id);
      await eventually(
        async () => (await list('resource_id=n-4')).total === 1,
        'the event after the invalid one',
      );
      const rejected = await list('action=audit.record_rejected');
      expect(rejected.data).toEqual([
        expect.objectContaining({
          event_id: invalid.id,
          service: 'revocation',
          actor_id: 'system',
          resource_type: 'audit_event',
          resource_id: invalid.id,
          outcome: 'failure',
          details: {
            subject: 'revocation.v1.audit.recorded',
            problems: ['outcome must be one of success, failure, denied'],
          },
        }),
      ]);
    });
  });

  describe('GET /api/v1/audit/export', () => {
    const JANUARY = 'from=2026-01-01T00:00:00Z&to=2026-01-31T00:00:00Z';

    it('streams NDJSON, one event per line in time order, every line with a recomputable hash', async () => {
      const response = await api(`/api/v1/audit/export?${JANUARY}`, auditorKey);
      expect(response.status).toBe(200);
      expect(response.headers['content-type']).toBe('application/x-ndjson; charset=utf-8');
      expect(response.headers['cache-control']).toBe('no-store');
      expect(response.text.endsWith('\n')).toBe(true);
      const events = lines(response.text);
      expect(events.map((e) => e.resource_id)).toEqual(['rp-a', 'key-b', 'cert-1', 'rp-a', 'cert-2', 'r-x']);
      for (const event of events) expect(auditEventHash(event.prev_hash, event)).toBe(event.hash);
      expect(events[0]).toEqual({
        ...SYNTHETIC[0],
        seq: 4,
        prev_hash: expect.stringMatching(/^[0-9a-f]{64}$/),
        hash: expect.any(String),
      });
    });

    it.each([
      ['category=auth', ['key-b', 'r-x']],
      ['category=config,auth', ['rp-a', 'key-b', 'rp-a', 'r-x']],
      ['limit=2', ['rp-a', 'key-b']],
      ['limit=1&category=cert_lifecycle', ['cert-1']],
    ])('filters and limits: %s', async (query, expected) => {
      const response = await api(`/api/v1/audit/export?${JANUARY}&${query}`, auditorKey);
      expect(response.status).toBe(200);
      expect(lines(response.text).map((e) => e.resource_id)).toEqual(expected);
    });

    it('treats from as inclusive and to as exclusive', async () => {
      const response = await api(
        '/api/v1/audit/export?from=2026-01-02T10:00:00Z&to=2026-01-04T10:00:00Z',
        auditorKey,
      );
      expect(lines(response.text).map((e) => e.resource_id)).toEqual(['key-b', 'cert-1']);
    });

    it("covers the last 24 hours by default: today's key creations, not January", async () => {
      const response = await api('/api/v1/audit/export', auditorKey);
      expect(response.status).toBe(200);
      const events = lines(response.text);
      expect(events.filter((e) => e.action === 'auth.api_key_created').map((e) => e.details?.name)).toEqual([
        'audit-r-auditor',
        'audit-r-viewer',
      ]);
      expect(events.some((e) => e.service === 'notifier' && e.occurred_at.startsWith('2026-01'))).toBe(false);
    });

    it.each([
      ['from=2026-01-10T00:00:00Z&to=2026-01-01T00:00:00Z', 'from must not be after to'],
      ['from=2026-01-01T00:00:00Z&to=2026-04-01T00:00:01Z', 'the window from..to must be at most 90 days'],
      ['limit=0', 'limit must be at least 1'],
      ['limit=100001', 'limit must be at most 100000'],
      ['limit=many', 'limit must be an integer'],
      [
        'category=auth,security',
        'category must be one or more of cert_lifecycle, auth, config, comma-separated',
      ],
      ['from=last-week', 'from must be an ISO 8601 timestamp'],
      ['format=csv', 'format is not a known field'],
    ])('answers 400 before any line for %s', async (query, message) => {
      const response = await api(`/api/v1/audit/export?${query}`, auditorKey);
      expect(response.status).toBe(400);
      expect(response.headers['content-type']).toMatch(/^application\/json/);
      expect(response.json()).toMatchObject({ code: 'validation_failed', message });
    });

    it('needs audit.export', async () => {
      expect((await api('/api/v1/audit/export', viewerKey)).status).toBe(403);
      expect((await api('/api/v1/audit/export', null)).status).toBe(401);
    });
  });

  describe('GET /api/v1/audit/verify', () => {
    it('reports an intact chain with the number of events checked', async () => {
      const response = await api('/api/v1/audit/verify', auditorKey);
      expect(response.status).toBe(200);
      expect(response.json()).toEqual({ ok: true, checked: await count() });
      expect((await api('/api/v1/audit/verify', viewerKey)).status).toBe(403);
    });

    it('reports a row changed behind the triggers as the first broken link, and keeps appending after it', async () => {
      // An attacker with database access: triggers off, one field changed, triggers on again.
      const victim = (await list('resource_id=cert-1')).data[0];
      await db.query('ALTER TABLE auth.audit_events DISABLE TRIGGER audit_events_no_update');
      await db.query("UPDATE auth.audit_events SET actor_id = 'someone-else' WHERE seq = $1", [victim.seq]);
      await db.query('ALTER TABLE auth.audit_events ENABLE TRIGGER audit_events_no_update');
      await expect(db.query("UPDATE auth.audit_events SET actor_id = 'x' WHERE false")).rejects.toThrow(
        /append-only/,
      );

      const verification = (await api('/api/v1/audit/verify', auditorKey)).json() as AuditChainVerification;
      expect(verification).toEqual({
        ok: false,
        checked: victim.seq,
        first_broken: { seq: victim.seq, event_id: victim.event_id, reason: 'hash_mismatch' },
      });

      // New events still chain onto the stored head; the break stays reported where it is.
      const before = await count();
      expect(
        (await api('/api/v1/renewal-policies', undefined, 'POST', { name: 'After tamper', max_retries: 1 }))
          .status,
      ).toBe(201);
      await eventually(async () => (await count()) === before + 1, 'the next event in the store');
      expect(
        ((await api('/api/v1/audit/verify', auditorKey)).json() as AuditChainVerification).first_broken,
      ).toEqual(verification.first_broken);
    });
  });
});
