import { OutboundNotification } from '../notifier-connector';
import { PAGERDUTY_LIMITS, pagerDutyEventBody } from './pagerduty.connector';

const KEY = 'R0123456789abcdef0123456789ABCDE';

const failed: OutboundNotification = {
  id: 'n1',
  event_type: 'deployment.failed',
  severity: 'critical',
  title: 'x'.repeat(2_000),
  dedup_key: `deployment.failed:job-1:${'y'.repeat(400)}`,
  certificate_id: null,
  recipients: [],
  details: { job_id: 'job-1', days: 3, error: '\u0001'.repeat(300_000), note: 'é'.repeat(300_000) },
  occurred_at: '2026-11-24T08:00:00.000Z',
};

describe('pagerDutyEventBody', () => {
  it('Events API v2 limits: summary 1,024, dedup_key 255, the event at most 512 KB', () => {
    const body = pagerDutyEventBody(KEY, failed);
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(PAGERDUTY_LIMITS.eventBytes);
    const event = JSON.parse(body) as {
      dedup_key: string;
      payload: { summary: string; custom_details: Record<string, unknown> };
    };
    expect(event.payload.summary.length).toBeLessThanOrEqual(1_024);
    expect(event.dedup_key.length).toBeLessThanOrEqual(255);
    // Short values whole, numbers as numbers; the long ones cut and marked.
    expect(event.payload.custom_details).toMatchObject({ job_id: 'job-1', days: 3 });
    expect(String(event.payload.custom_details.note).endsWith('…')).toBe(true);
  });

  it('resolves under the same bounded dedup_key it triggered', () => {
    const key = 'c'.repeat(400);
    const trigger = JSON.parse(
      pagerDutyEventBody(KEY, { ...failed, event_type: 'certificate.expiring', certificate_id: key }),
    ) as { dedup_key: string };
    const resolve = JSON.parse(
      pagerDutyEventBody(KEY, { ...failed, event_type: 'certificate.renewed', certificate_id: key }),
    ) as { event_action: string; dedup_key: string };
    expect(resolve).toMatchObject({ event_action: 'resolve', dedup_key: trigger.dedup_key });
    expect(trigger.dedup_key.length).toBeLessThanOrEqual(255);
  });

  it('leaves an ordinary event as it was', () => {
    const body = JSON.parse(
      pagerDutyEventBody(KEY, { ...failed, title: 'short', details: { error: 'refused' } }),
    ) as { payload: { summary: string; custom_details: unknown } };
    expect(body.payload).toMatchObject({ summary: 'short', custom_details: { error: 'refused' } });
  });
});
