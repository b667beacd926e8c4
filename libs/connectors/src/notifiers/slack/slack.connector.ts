import { chatWebhookConnector } from '../chat-webhook';
import { OutboundNotification } from '../notifier-connector';

const EMOJI = { info: ':information_source:', warning: ':warning:', critical: ':rotating_light:' } as const;

/**
 * Slack's escaping of text it reads as markup ("Escaping text": &, < and >), so a value from a
 * certificate (a discovered subject, a remote error) cannot ping `<!channel>` or hide a link.
 */
export function slackEscape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** An incoming-webhook message with Block Kit blocks and a plain `text` fallback for notifications. */
export function slackMessage(notification: OutboundNotification): Record<string, unknown> {
  const fields = Object.entries(notification.details)
    .filter(([, value]) => value !== null && value !== '')
    .slice(0, 10)
    .map(([key, value]) => ({
      type: 'mrkdwn',
      text: `*${slackEscape(key)}*\n${slackEscape(String(value).slice(0, 500))}`,
    }));
  return {
    text: slackEscape(`${notification.title} (${notification.event_type})`),
    blocks: [
      { type: 'header', text: { type: 'plain_text', text: notification.title.slice(0, 150), emoji: true } },
      {
        type: 'section',
        text: {
          type: 'mrkdwn',
          text: `${EMOJI[notification.severity]} *${notification.event_type}* (${notification.severity})`,
        },
        ...(fields.length > 0 ? { fields } : {}),
      },
      {
        type: 'context',
        elements: [
          {
            type: 'mrkdwn',
            text: `Certlane · ${slackEscape(notification.certificate_id ?? notification.dedup_key)}`,
          },
        ],
      },
    ],
  };
}

export const slackConnector = chatWebhookConnector('slack', 'webhook_url', slackMessage);
