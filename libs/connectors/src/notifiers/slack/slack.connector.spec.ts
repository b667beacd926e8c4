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
