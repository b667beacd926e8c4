import { OutboundNotification } from '../notifier-connector';
import { WEBHOOK_LIMITS, webhookBody } from './webhook.connector';

const failed: OutboundNotification = {
  id: 'n1',
  event_type: 'deployment.failed',
  severity: 'critical',
  title: 't'.repeat(5_000),
  dedup_key: 'deployment.failed:job-1:2026-11-24T08:00:00.000Z',
  certificate_id: 'cert-1',
  recipients: [],
  details: { job_id: 'job-1', attempt: 2, error: `refused ${'€'.repeat(200_000)}` },
  occurred_at: '2026-11-24T08:00:00.000Z',
};

describe('webhookBody', () => {
  it('keeps the body within 64 KiB (under the 100 KB default of common JSON parsers)', () => {
    const body = webhookBody(failed);
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(WEBHOOK_LIMITS.bodyBytes);
    const { data } = JSON.parse(body) as { data: { title: string; details: Record<string, unknown> } };
    expect(data.title.length).toBeLessThanOrEqual(1_024);
    expect(data.details).toMatchObject({ job_id: 'job-1', attempt: 2 });
    expect(String(data.details.error)).toMatch(/^refused €+…$/);
  });

  it('sends an ordinary notification unchanged', () => {
    const plain = { ...failed, title: 'Deployment failed', details: { job_id: 'job-1', error: 'refused' } };
    expect(JSON.parse(webhookBody(plain))).toEqual({
      type: 'deployment.failed',
      timestamp: '2026-11-24T08:00:00.000Z',
      data: {
        notification_id: 'n1',
        severity: 'critical',
        title: 'Deployment failed',
        dedup_key: 'deployment.failed:job-1:2026-11-24T08:00:00.000Z',
        certificate_id: 'cert-1',
        details: { job_id: 'job-1', error: 'refused' },
      },
    });
  });
});
