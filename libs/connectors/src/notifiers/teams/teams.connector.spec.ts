import { OutboundNotification } from '../notifier-connector';
import { teamsMessage } from './teams.connector';

interface Element {
  type: string;
  text?: string;
  inlines?: { type: string; text: string }[];
  facts?: unknown[];
}

const card = (notification: Partial<OutboundNotification>) => {
  const message = teamsMessage({
    id: 'n1',
    event_type: 'discovery.found',
    severity: 'warning',
    title: 'Found a certificate',
    dedup_key: 'd1',
    certificate_id: null,
    recipients: [],
    details: {},
    occurred_at: '2026-11-24T00:00:00.000Z',
    ...notification,
  });
  return (message.attachments as { content: { body: Element[] } }[])[0].content.body;
};

describe('teamsMessage', () => {
  it('puts values from certificates only where Teams reads no markdown (TextRun), so they cannot hide a link', () => {
    const body = card({
      title: 'Found [Click to renew](https://evil.test) **now**',
      details: { subject: 'CN=[login](https://evil.test/phish), O=_x_', days_remaining: 13 },
    });
    // Teams reads markdown in TextBlock.text and in Fact.title and Fact.value: none may carry a value.
    const markdownBearing = body.flatMap((element) => [
      ...(element.type === 'TextBlock' ? [element.text ?? ''] : []),
      ...(element.facts ?? []).flatMap((fact) => Object.values(fact as Record<string, string>)),
    ]);
    expect(markdownBearing.join('\n')).not.toMatch(/evil\.test|\*\*now/);
    const runs = body.flatMap((element) => (element.inlines ?? []).map((run) => run.text));
    expect(runs).toContain('Found [Click to renew](https://evil.test) **now**');
    expect(runs).toContain('CN=[login](https://evil.test/phish), O=_x_');
    expect(
      body.every(
        (element) => element.type !== 'RichTextBlock' || element.inlines!.every((r) => r.type === 'TextRun'),
      ),
    ).toBe(true);
  });

  it('does not let a value call a DATE/TIME function, and bounds each value (Teams refuses messages over 28 KB)', () => {
    const body = card({
      title: 'x {{DATE(2017-02-14T06:08:39Z, SHORT)}}',
      details: { error: 'e'.repeat(100_000) },
    });
    const runs = body.flatMap((element) => (element.inlines ?? []).map((run) => run.text));
    expect(runs.join('\n')).not.toContain('{{');
    expect(JSON.stringify(body).length).toBeLessThan(28_000);
  });
});
