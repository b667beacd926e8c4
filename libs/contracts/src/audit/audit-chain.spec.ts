import { createHash } from 'node:crypto';
import {
  AUDIT_GENESIS_HASH,
  AuditChainVerifier,
  auditEventHash,
  canonicalAuditEvent,
  canonicalJson,
  chainAuditEvents,
  UnchainedAuditEvent,
} from './audit-chain';
import { AuditEventDto } from './audit-record';

const event = (n: number, overrides: Partial<UnchainedAuditEvent> = {}): UnchainedAuditEvent => ({
  event_id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
  service: 'auth',
  action: 'auth.api_key_created',
  event_category: 'auth',
  actor_id: 'alice',
  resource_type: 'api_key',
  resource_id: `key-${n}`,
  outcome: 'success',
  request_id: `req-${n}`,
  details: { name: `key ${n}`, role_ids: ['r-viewer'] },
  occurred_at: `2026-01-01T00:00:0${n % 10}.000Z`,
  recorded_at: `2026-01-01T00:00:0${n % 10}.500Z`,
  ...overrides,
});

const verify = (events: AuditEventDto[]) => {
  const verifier = new AuditChainVerifier();
  for (const e of events) if (verifier.push(e)) break;
  return verifier.result();
};

describe(canonicalJson.name, () => {
  it('sorts object keys at every depth and keeps array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, 1], c: 'x' } })).toBe('{"a":{"c":"x","d":[3,1]},"b":1}');
  });

  it('drops undefined members like JSON does and writes null for a bare undefined', () => {
    expect(canonicalJson({ a: undefined, b: null })).toBe('{"b":null}');
    expect(canonicalJson(undefined)).toBe('null');
  });

  it('escapes strings as JSON does', () => {
    expect(canonicalJson({ 'k"': 'line\nbreak é' })).toBe('{"k\\"":"line\\nbreak é"}');
  });
});

describe(canonicalAuditEvent.name, () => {
  it('is the documented array, so a third party can recompute it', () => {
    const fields = { ...event(1), seq: 1 };
    expect(canonicalAuditEvent(fields)).toBe(
      '["certlane-audit-v1",1,"00000000-0000-4000-8000-000000000001","auth","auth.api_key_created",' +
        '"auth","alice","api_key","key-1","success","req-1",{"name":"key 1","role_ids":["r-viewer"]},' +
        '"2026-01-01T00:00:01.000Z","2026-01-01T00:00:01.500Z"]',
    );
  });

  it('writes a missing request id as null and missing details as {}', () => {
    const fields = { ...event(1, { request_id: undefined, details: undefined }), seq: 1 };
    expect(canonicalAuditEvent(fields)).toContain('"success",null,{},"2026');
  });

  it('does not depend on the key order of details', () => {
    const a = { ...event(1, { details: { x: 1, y: { p: 1, q: 2 } } }), seq: 1 };
    const b = { ...event(1, { details: { y: { q: 2, p: 1 }, x: 1 } }), seq: 1 };
    expect(auditEventHash(AUDIT_GENESIS_HASH, a)).toBe(auditEventHash(AUDIT_GENESIS_HASH, b));
  });
});

describe(auditEventHash.name, () => {
  it('is SHA-256 over prev_hash, a newline and the canonical form', () => {
    const fields = { ...event(1), seq: 1 };
    const expected = createHash('sha256')
      .update(`${AUDIT_GENESIS_HASH}\n${canonicalAuditEvent(fields)}`)
      .digest('hex');
    expect(auditEventHash(AUDIT_GENESIS_HASH, fields)).toBe(expected);
    expect(expected).toMatch(/^[0-9a-f]{64}$/);
  });

  const changes: [string, Partial<AuditEventDto>][] = [
    ['seq', { seq: 2 }],
    ['event_id', { event_id: '00000000-0000-4000-8000-999999999999' }],
    ['service', { service: 'issuance' }],
    ['action', { action: 'auth.api_key_deleted' }],
    ['event_category', { event_category: 'config' }],
    ['actor_id', { actor_id: 'mallory' }],
    ['resource_type', { resource_type: 'role' }],
    ['resource_id', { resource_id: 'key-2' }],
    ['outcome', { outcome: 'failure' }],
    ['request_id', { request_id: 'req-2' }],
    ['details', { details: { name: 'key 1', role_ids: ['r-admin'] } }],
    ['occurred_at', { occurred_at: '2026-01-01T00:00:01.001Z' }],
    ['recorded_at', { recorded_at: '2026-01-01T00:00:01.501Z' }],
  ];
  it.each(changes)('changes when %s changes', (_field, change) => {
    const fields = { ...event(1), seq: 1 };
    expect(auditEventHash(AUDIT_GENESIS_HASH, { ...fields, ...change })).not.toBe(
      auditEventHash(AUDIT_GENESIS_HASH, fields),
    );
  });

  it('changes when prev_hash changes', () => {
    const fields = { ...event(1), seq: 1 };
    expect(auditEventHash('1'.repeat(64), fields)).not.toBe(auditEventHash(AUDIT_GENESIS_HASH, fields));
  });
});

describe(chainAuditEvents.name, () => {
  it('starts an empty chain at seq 1 after 64 zeros and links each event to the previous one', () => {
    const chain = chainAuditEvents(undefined, [event(1), event(2), event(3)]);
    expect(chain.map((e) => e.seq)).toEqual([1, 2, 3]);
    expect(chain[0].prev_hash).toBe(AUDIT_GENESIS_HASH);
    expect(chain[1].prev_hash).toBe(chain[0].hash);
    expect(chain[2].prev_hash).toBe(chain[1].hash);
    expect(chain[0].hash).toBe(auditEventHash(AUDIT_GENESIS_HASH, chain[0]));
  });

  it('continues after a head', () => {
    const first = chainAuditEvents(undefined, [event(1), event(2)]);
    const more = chainAuditEvents(first[1], [event(3)]);
    expect(more[0]).toMatchObject({ seq: 3, prev_hash: first[1].hash });
    expect(verify([...first, ...more])).toEqual({ ok: true, checked: 3 });
  });
});

describe(AuditChainVerifier.name, () => {
  const chain = () =>
    chainAuditEvents(
      undefined,
      [1, 2, 3, 4, 5].map((n) => event(n)),
    );

  it('accepts an intact chain and an empty one', () => {
    expect(verify(chain())).toEqual({ ok: true, checked: 5 });
    expect(verify([])).toEqual({ ok: true, checked: 0 });
  });

  it('reports a changed field as a hash mismatch at that event', () => {
    const events = chain();
    events[2] = { ...events[2], actor_id: 'mallory' };
    expect(verify(events)).toEqual({
      ok: false,
      checked: 3,
      first_broken: { seq: 3, event_id: events[2].event_id, reason: 'hash_mismatch' },
    });
  });

  it('reports a changed field whose hash was recomputed at the next event', () => {
    const events = chain();
    const forged = { ...events[2], actor_id: 'mallory' };
    events[2] = { ...forged, hash: auditEventHash(forged.prev_hash, forged) };
    expect(verify(events).first_broken).toEqual({
      seq: 4,
      event_id: events[3].event_id,
      reason: 'prev_hash_mismatch',
    });
  });

  it('reports a removed event as a seq gap', () => {
    const events = chain();
    events.splice(1, 1);
    expect(verify(events).first_broken).toMatchObject({ seq: 3, reason: 'seq_gap' });
  });

  it('reports a chain that does not start at seq 1 or at 64 zeros', () => {
    expect(verify(chain().slice(1)).first_broken).toMatchObject({ seq: 2, reason: 'seq_gap' });
    const [first] = chainAuditEvents({ seq: 0, hash: '1'.repeat(64) }, [event(1)]);
    expect(verify([first]).first_broken).toMatchObject({ seq: 1, reason: 'prev_hash_mismatch' });
  });

  it('keeps the first break and ignores what follows', () => {
    const events = chain();
    events[1] = { ...events[1], outcome: 'denied' };
    events[3] = { ...events[3], outcome: 'denied' };
    const verifier = new AuditChainVerifier();
    const breaks = events.map((e) => verifier.push(e));
    expect(breaks.filter(Boolean)).toHaveLength(1);
    expect(verifier.done).toBe(true);
    expect(verifier.result()).toMatchObject({ checked: 2, first_broken: { seq: 2 } });
  });
});
