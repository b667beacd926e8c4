import { OutboundNotification } from '../notifier-connector';
import { OPSGENIE_LIMITS, opsGenieRequest } from './opsgenie.connector';

/** What OpsGenie's Create Alert checks ("JSON Body Fields", Limit column). */
function refusals(body: Record<string, unknown>): string[] {
  const found: string[] = [];
  const text = (field: string, max: number) => {
    const value = body[field];
    if (typeof value === 'string' && value.length > max) found.push(`${field} ${value.length} > ${max}`);
  };
  text('message', 130);
  text('alias', 512);
  text('description', 15_000);
  text('source', 100);
  const tags = (body.tags ?? []) as string[];
  if (tags.length > 20 || tags.some((tag) => tag.length > 50)) found.push('tags');
  const details = (body.details ?? {}) as Record<string, string>;
  const total = Object.entries(details).reduce((sum, [k, v]) => sum + k.length + v.length, 0);
  if (total > 8_000) found.push(`details ${total} > 8000`);
  return found;
}

const failed: OutboundNotification = {
  id: 'n1',
  event_type: 'deployment.failed',
  severity: 'critical',
  title: `Deployment of ${'very-long-name.'.repeat(20)}example.com failed`,
  dedup_key: `deployment.failed:job-1:${'x'.repeat(600)}`,
  certificate_id: null,
  recipients: [],
  details: { job_id: 'job-1', job_type: 'deploy', error: `ECONNRESET ${'stack frame\n'.repeat(2_000)}` },
  occurred_at: '2026-11-24T08:00:00.000Z',
};

describe('opsGenieRequest', () => {
  it('keeps a long job error within the Alert API limits (details 8,000 characters of keys and values)', () => {
    const { body } = opsGenieRequest(failed);
    expect(refusals(body)).toEqual([]);
    const details = body.details as Record<string, string>;
    // Short values stay whole; the long error is cut, marked, and uses what is left of the budget.
    expect(details.job_id).toBe('job-1');
    expect(details.job_type).toBe('deploy');
    expect(details.error.startsWith('ECONNRESET stack frame')).toBe(true);
    expect(details.error.endsWith('…')).toBe(true);
    const total = Object.entries(details).reduce((sum, [k, v]) => sum + k.length + v.length, 0);
    expect(total).toBeGreaterThan(OPSGENIE_LIMITS.details - 10);
  });

  it('shares the details budget fairly when several values are long, and leaves small details alone', () => {
    const many = opsGenieRequest({
      ...failed,
      details: { a: 'a'.repeat(6_000), b: 'b'.repeat(6_000), n: 42, none: null },
    }).body;
    expect(refusals(many)).toEqual([]);
    const details = many.details as Record<string, string>;
    expect(details.a.length).toBe(details.b.length);
    expect(details).toMatchObject({ n: '42', none: '' });
    const small = opsGenieRequest({ ...failed, details: { job_id: 'job-1' } }).body;
    expect(small.details).toEqual({ job_id: 'job-1' });
  });

  it('closes the alert it opened: a long key is bounded the same way (start kept, hash of the whole)', () => {
    const key = 'c'.repeat(700);
    const open = opsGenieRequest({ ...failed, event_type: 'certificate.expiring', certificate_id: key });
    const close = opsGenieRequest({
      ...failed,
      event_type: 'certificate.renewed',
      certificate_id: key,
      title: 'renewed',
    });
    const alias = open.body.alias as string;
    expect(alias.length).toBeLessThanOrEqual(512);
    expect(close.path).toBe(`/v2/alerts/${encodeURIComponent(alias)}/close?identifierType=alias`);
    const other = opsGenieRequest({
      ...failed,
      event_type: 'certificate.expiring',
      certificate_id: `${key}d`,
    });
    expect(other.body.alias).not.toBe(alias);
  });

  it('never cuts between the halves of a surrogate pair', () => {
    const { body } = opsGenieRequest({ ...failed, title: `${'a'.repeat(129)}😀😀` });
    const message = body.message as string;
    expect(message.length).toBeLessThanOrEqual(130);
    expect(Buffer.from(message, 'utf8').toString('utf8')).toBe(message);
    expect(message).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
  });
});
