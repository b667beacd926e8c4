import { chatWebhookConnector } from '../chat-webhook';
import { OutboundNotification } from '../notifier-connector';

const EMOJI = { info: ':information_source:', warning: ':warning:', critical: ':rotating_light:' } as const;

/** An incoming-webhook message with Block Kit blocks and a plain `text` fallback for notifications. */
export function slackMessage(notification: OutboundNotification): Record<string, unknown> {
  const fields = Object.entries(notification.details)
    .filter(([, value]) => value !== null && value !== '')
    .slice(0, 10)
    .map(([key, value]) => ({ type: 'mrkdwn', text: `*${key}*\n${String(value).slice(0, 500)}` }));
  return {
    text: `${notification.title} (${notification.event_type})`,
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
          { type: 'mrkdwn', text: `Certlane · ${notification.certificate_id ?? notification.dedup_key}` },
        ],
      },
    ],
  };
}

export const slackConnector = chatWebhookConnector('slack', 'webhook_url', slackMessage);
