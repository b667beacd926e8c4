import { AuditRecord, EventEnvelope } from '@certlane/contracts';
import { auditEntryFromEnvelope, auditRecordProblems, canonicalTimestamp } from './audit-entry';

const NOW = new Date('2026-05-01T10:00:00.000Z');

const record: AuditRecord = {
  action: 'renewal_policy.created',
  event_category: 'config',
  actor_id: 'alice',
  resource_type: 'renewal_policy',
  resource_id: 'rp-nightly',
  outcome: 'success',
  request_id: 'req-1',
  details: { policy: { name: 'Nightly', thresholds: [30, 7] } },
};

const envelope = (
  data: unknown,
  overrides: Partial<EventEnvelope<unknown>> = {},
): EventEnvelope<unknown> => ({
  id: '5f1b6a8e-8f8d-4d0e-9a55-2b1f0c3d4e5f',
  subject: 'issuance.v1.audit.recorded',
  occurred_at: '2026-05-01T09:59:59.123Z',
  actor_id: 'alice',
  data,
  ...overrides,
});

describe(auditEntryFromEnvelope.name, () => {
  it('takes the event id and time from the envelope and the rest from the record', () => {
    expect(auditEntryFromEnvelope('issuance', envelope(record), NOW)).toEqual({
      event_id: '5f1b6a8e-8f8d-4d0e-9a55-2b1f0c3d4e5f',
      service: 'issuance',
      action: 'renewal_policy.created',
      event_category: 'config',
      actor_id: 'alice',
      resource_type: 'renewal_policy',
      resource_id: 'rp-nightly',
      outcome: 'success',
      request_id: 'req-1',
      details: { policy: { name: 'Nightly', thresholds: [30, 7] } },
      occurred_at: '2026-05-01T09:59:59.123Z',
    });
  });

  it('writes the event time in the canonical form (UTC, milliseconds)', () => {
    const entry = auditEntryFromEnvelope(
      'auth',
      envelope(record, { occurred_at: '2026-05-01T11:59:59.123456+02:00' }),
    );
    expect(entry.occurred_at).toBe('2026-05-01T09:59:59.123Z');
  });

  it('leaves out a missing request id and stores missing details as {}', () => {
    const { request_id: _r, details: _d, ...bare } = record;
    const entry = auditEntryFromEnvelope('auth', envelope(bare), NOW);
    expect(entry).not.toHaveProperty('request_id');
    expect(entry.details).toEqual({});
  });

  it('keeps details as a JSON round trip gives them back', () => {
    const entry = auditEntryFromEnvelope(
      'auth',
      envelope({ ...record, details: { when: new Date('2026-01-01T00:00:00Z'), gone: undefined } }),
    );
    expect(entry.details).toEqual({ when: '2026-01-01T00:00:00.000Z' });
  });

  it('stores an invalid record as audit.record_rejected naming the problems, not the record', () => {
    const entry = auditEntryFromEnvelope(
      'issuance',
      envelope({ ...record, event_category: 'security' }),
      NOW,
    );
    expect(entry).toEqual({
      event_id: '5f1b6a8e-8f8d-4d0e-9a55-2b1f0c3d4e5f',
      service: 'issuance',
      action: 'audit.record_rejected',
      event_category: 'auth',
      actor_id: 'system',
      resource_type: 'audit_event',
      resource_id: '5f1b6a8e-8f8d-4d0e-9a55-2b1f0c3d4e5f',
      outcome: 'failure',
      details: {
        subject: 'issuance.v1.audit.recorded',
        problems: ['event_category must be one of cert_lifecycle, auth, config'],
      },
      occurred_at: '2026-05-01T09:59:59.123Z',
    });
  });

  it('rejects an envelope without a usable time, dating it when it is stored', () => {
    const entry = auditEntryFromEnvelope('auth', envelope(record, { occurred_at: 'yesterday' }), NOW);
    expect(entry).toMatchObject({ action: 'audit.record_rejected', occurred_at: NOW.toISOString() });
    expect(entry.details).toMatchObject({ problems: ['the envelope occurred_at is not a timestamp'] });
  });

  it('derives a stable event id for an envelope without one, so redeliveries still collapse', () => {
    const broken = envelope(record, { id: '' });
    const first = auditEntryFromEnvelope('auth', broken, NOW);
    const again = auditEntryFromEnvelope('auth', broken, new Date(NOW.getTime() + 60_000));
    expect(first.event_id).toMatch(/^invalid-[0-9a-f]{40}$/);
    expect(again.event_id).toBe(first.event_id);
    expect(first.action).toBe('audit.record_rejected');
  });
});

describe(auditRecordProblems.name, () => {
  it('finds nothing wrong with a valid record', () => {
    expect(auditRecordProblems(record)).toEqual([]);
  });

  it.each<[string, unknown, string]>([
    ['not an object', 'text', 'the record is not an object'],
    ['an array', [record], 'the record is not an object'],
    ['no action', { ...record, action: undefined }, 'action must be a string of 1 to 200 characters'],
    ['an empty actor', { ...record, actor_id: '' }, 'actor_id must be a string of 1 to 200 characters'],
    [
      'a long resource id',
      { ...record, resource_id: 'x'.repeat(201) },
      'resource_id must be a string of 1 to 200 characters',
    ],
    [
      'a number as resource type',
      { ...record, resource_type: 7 },
      'resource_type must be a string of 1 to 200 characters',
    ],
    ['an unknown outcome', { ...record, outcome: 'ok' }, 'outcome must be one of success, failure, denied'],
    [
      'a numeric request id',
      { ...record, request_id: 12 },
      'request_id must be a string of 1 to 128 characters',
    ],
    ['details as an array', { ...record, details: ['x'] }, 'details must be an object'],
    [
      'U+0000 in details',
      { ...record, details: { note: 'a\u0000b' } },
      'details must not contain U+0000 or unpaired surrogates',
    ],
    [
      'a lone surrogate in a details key',
      { ...record, details: { ['\ud800']: 1 } },
      'details must not contain U+0000 or unpaired surrogates',
    ],
    [
      'U+0000 in the action',
      { ...record, action: 'x\u0000' },
      'action must be a string of 1 to 200 characters',
    ],
  ])('reports %s', (_case, data, problem) => {
    expect(auditRecordProblems(data)).toEqual([problem]);
  });

  it('refuses details over 64 KiB of JSON and accepts them up to that', () => {
    const sized = (bytes: number) => ({ ...record, details: { p: 'x'.repeat(bytes - '{"p":""}'.length) } });
    expect(auditRecordProblems(sized(64 * 1024))).toEqual([]);
    expect(auditRecordProblems(sized(64 * 1024 + 1))).toEqual([
      'details must be at most 65536 bytes of JSON',
    ]);
  });

  it('accepts surrogate pairs (emoji) in details', () => {
    expect(auditRecordProblems({ ...record, details: { note: 'ok \u{1F512}' } })).toEqual([]);
  });
});

describe(canonicalTimestamp.name, () => {
  it('normalises to toISOString and refuses non-timestamps', () => {
    expect(canonicalTimestamp('2026-01-01T00:00:00Z')).toBe('2026-01-01T00:00:00.000Z');
    expect(canonicalTimestamp('soon')).toBeUndefined();
    expect(canonicalTimestamp(17)).toBeUndefined();
  });
});
