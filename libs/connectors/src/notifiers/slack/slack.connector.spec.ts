import { OutboundNotification } from '../notifier-connector';
import { slackEscape, slackMessage } from './slack.connector';

describe('slackMessage', () => {
  it('Slack "Escaping text": escapes &, < and > of every value, so a certificate cannot ping or hide a link', () => {
    expect(slackEscape('<!channel> & <https://evil.test|click>')).toBe(
      '&lt;!channel&gt; &amp; &lt;https://evil.test|click&gt;',
    );
    const message = slackMessage({
      id: 'n1',
      event_type: 'discovery.found',
      severity: 'warning',
      title: 'Found <!here>',
      dedup_key: 'd1',
      details: { subject: 'CN=<!channel> <https://evil.test|click>' },
    } as unknown as OutboundNotification);
    // Every text Slack reads as markup: the fallback `text` and the mrkdwn fields (the header is
    // plain_text, which Slack does not parse).
    const blocks = message.blocks as { type: string; fields?: { text: string }[] }[];
    const markup = [
      message.text as string,
      ...blocks.flatMap((block) => (block.fields ?? []).map((f) => f.text)),
    ];
    expect(markup.join('\n')).not.toMatch(/<!(channel|here)>|<https:/);
    expect(markup).toContain('*subject*\nCN=&lt;!channel&gt; &lt;https://evil.test|click&gt;');
    expect(message.text).toBe('Found &lt;!here&gt; (discovery.found)');
  });
});

/** What Slack checks of a Block Kit message ("Blocks" reference, per block type). */
function refusals(message: Record<string, unknown>): string[] {
  const found: string[] = [];
  const blocks = message.blocks as {
    type: string;
    text?: { text: string };
    fields?: { text: string }[];
    elements?: { text: string }[];
  }[];
  if (blocks.length > 50) found.push(`${blocks.length} blocks`);
  for (const block of blocks) {
    if (block.type === 'header' && block.text!.text.length > 150) found.push('header');
    if (block.type === 'section') {
      if ((block.text?.text.length ?? 0) > 3000) found.push('section text');
      if ((block.fields ?? []).length > 10) found.push(`${block.fields!.length} fields`);
      for (const field of block.fields ?? [])
        if (field.text.length > 2000) found.push(`field of ${field.text.length}`);
    }
    if (block.type === 'context') {
      if (block.elements!.length > 10) found.push('context elements');
      for (const element of block.elements!) if (element.text.length > 3000) found.push('context text');
    }
  }
  if ((message.text as string).length > 4000) found.push('text');
  return found;
}

const base: Omit<OutboundNotification, 'details'> = {
  id: 'n1',
  event_type: 'deployment.failed',
  severity: 'critical',
  title: 'Deployment failed',
  dedup_key: 'd1',
  certificate_id: 'cert-1',
  recipients: [],
  occurred_at: '2026-11-24T08:00:00.000Z',
};

describe('slackMessage within Slack limits', () => {
  it('cuts a value after escaping: 1,999 ampersands stay within the 2,000-character field limit', () => {
    const message = slackMessage({ ...base, details: { error: '&'.repeat(1_999) } });
    expect(refusals(message)).toEqual([]);
    const [field] = (message.blocks as { fields?: { text: string }[] }[])[1].fields!;
    expect(field.text.startsWith('*error*\n&amp;&amp;')).toBe(true);
    expect(field.text.endsWith('&amp;…')).toBe(true);
  });

  it('never leaves half an entity at the cut, whatever the cut position', () => {
    for (let pad = 0; pad < 5; pad++) {
      const message = slackMessage({ ...base, details: { e: `${'x'.repeat(pad)}${'<'.repeat(600)}` } });
      const [field] = (message.blocks as { fields?: { text: string }[] }[])[1].fields!;
      expect(field.text.length).toBeLessThanOrEqual(2000);
      expect(field.text.replace(/&(amp|lt|gt);/g, '')).not.toMatch(/&/);
    }
  });

  it('bounds the whole message: 10 fields a section, 50 blocks, long title, key and fallback text', () => {
    const details = Object.fromEntries(
      Array.from({ length: 600 }, (_, n) => [`${'k'.repeat(200)}${n}`, '>'.repeat(3_000)]),
    );
    const message = slackMessage({
      ...base,
      title: '<'.repeat(5_000),
      certificate_id: '&'.repeat(5_000),
      details,
    });
    expect(refusals(message)).toEqual([]);
    const blocks = message.blocks as { type: string; elements?: { text: string }[] }[];
    expect(blocks).toHaveLength(50);
    expect(blocks.at(-1)!.elements!.at(-1)!.text).toBe('120 more details not shown');
  });
});
