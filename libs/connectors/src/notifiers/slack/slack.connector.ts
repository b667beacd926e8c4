import { chatWebhookConnector } from '../chat-webhook';
import { OutboundNotification } from '../notifier-connector';
import { cut } from '../text-limits';

const EMOJI = { info: ':information_source:', warning: ':warning:', critical: ':rotating_light:' } as const;

/**
 * Slack's escaping of text it reads as markup ("Escaping text": &, < and >), so a value from a
 * certificate (a discovered subject, a remote error) cannot ping `<!channel>` or hide a link.
 */
export function slackEscape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * Block Kit's limits (Slack's "Blocks" reference): a message has at most 50 blocks, a section at
 * most 10 fields, a field's text 2,000 characters, a section's or context's text 3,000, a header
 * 150. The `text` fallback is kept to the 4,000 characters Slack recommends (it truncates longer
 * ones). Slack counts the text it receives, escapes included.
 */
export const SLACK_LIMITS = {
  blocks: 50,
  fieldsPerSection: 10,
  field: 2_000,
  text: 3_000,
  header: 150,
  fallback: 4_000,
  key: 100,
} as const;

const ENTITY = /&(?:a(?:m(?:p)?)?|l(?:t)?|g(?:t)?)?$/;

/**
 * Escaped text in at most `max` characters, cut after escaping so an escape cannot push it past
 * the limit, and never inside an entity (`&amp;`, `&lt;`, `&gt;`) or a surrogate pair.
 */
export function slackText(text: string, max: number): string {
  const escaped = slackEscape(text);
  if (escaped.length <= max) return escaped;
  const head = cut(escaped, max).slice(0, -1);
  return `${head.replace(ENTITY, '')}…`;
}

/** An incoming-webhook message with Block Kit blocks and a plain `text` fallback for notifications. */
export function slackMessage(notification: OutboundNotification): Record<string, unknown> {
  const fields = Object.entries(notification.details)
    .filter(([, value]) => value !== null && value !== '')
    .map(([key, value]) => {
      const name = `*${slackText(key, SLACK_LIMITS.key)}*\n`;
      return { type: 'mrkdwn', text: `${name}${slackText(String(value), SLACK_LIMITS.field - name.length)}` };
    });
  // Header, the first section and the context; further sections of 10 fields up to 50 blocks.
  const sections = Math.max(1, Math.ceil(fields.length / SLACK_LIMITS.fieldsPerSection));
  const shownSections = Math.min(sections, SLACK_LIMITS.blocks - 2);
  const shown = fields.slice(0, shownSections * SLACK_LIMITS.fieldsPerSection);
  const sectionBlocks = Array.from({ length: shownSections }, (_, n) => {
    const part = shown.slice(n * SLACK_LIMITS.fieldsPerSection, (n + 1) * SLACK_LIMITS.fieldsPerSection);
    return {
      type: 'section',
      ...(n === 0
        ? {
            text: {
              type: 'mrkdwn',
              text: `${EMOJI[notification.severity]} *${slackText(notification.event_type, 200)}* (${notification.severity})`,
            },
          }
        : {}),
      ...(part.length > 0 ? { fields: part } : {}),
    };
  });
  const left = fields.length - shown.length;
  return {
    text: slackText(`${notification.title} (${notification.event_type})`, SLACK_LIMITS.fallback),
    blocks: [
      {
        type: 'header',
        text: { type: 'plain_text', text: cut(notification.title, SLACK_LIMITS.header), emoji: true },
      },
      ...sectionBlocks,
      {
        type: 'context',
        elements: [
          {
            type: 'mrkdwn',
            text: `Certlane · ${slackText(notification.certificate_id ?? notification.dedup_key, SLACK_LIMITS.text - 20)}`,
          },
          ...(left > 0 ? [{ type: 'mrkdwn', text: `${left} more details not shown` }] : []),
        ],
      },
    ],
  };
}

export const slackConnector = chatWebhookConnector('slack', 'webhook_url', slackMessage);
