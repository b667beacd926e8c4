import { chatWebhookConnector } from '../chat-webhook';
import { OutboundNotification } from '../notifier-connector';

const COLOR = { info: 'Accent', warning: 'Warning', critical: 'Attention' } as const;

/** A value's share of the card: Teams refuses a workflow message above about 28 KB. */
const MAX_VALUE_LENGTH = 1000;
const MAX_TITLE_LENGTH = 300;

/**
 * Text for a TextRun. Adaptive Cards define no markdown escape, but a TextRun is never read as
 * markdown ("Markdown is not supported", TextRun, schema 1.2), so a value from a certificate (a
 * discovered subject, a remote error) cannot hide a link there. What TextRun still reads is the
 * DATE()/TIME() function syntax `{{...}}`; a zero-width space between the braces keeps it text.
 */
export function teamsText(text: string, max = MAX_VALUE_LENGTH): string {
  const bounded = text.length > max ? `${text.slice(0, max - 1)}…` : text;
  return bounded.replace(/\{\{/g, '{\u200B{').replace(/\}\}/g, '}\u200B}');
}

/**
 * The workflow request: a message with one Adaptive Card attachment (schema 1.4). Every text is a
 * TextRun in a RichTextBlock, not a TextBlock or a FactSet, whose text Teams reads as markdown.
 */
export function teamsMessage(notification: OutboundNotification): Record<string, unknown> {
  const facts = Object.entries(notification.details)
    .filter(([, value]) => value !== null && value !== '')
    .map(([title, value]) => ({
      type: 'RichTextBlock',
      spacing: 'Small',
      inlines: [
        { type: 'TextRun', text: teamsText(title, 100), weight: 'Bolder' },
        { type: 'TextRun', text: ': ' },
        { type: 'TextRun', text: teamsText(String(value)) },
      ],
    }));
  return {
    type: 'message',
    attachments: [
      {
        contentType: 'application/vnd.microsoft.card.adaptive',
        contentUrl: null,
        content: {
          $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
          type: 'AdaptiveCard',
          version: '1.4',
          body: [
            {
              type: 'RichTextBlock',
              inlines: [
                {
                  type: 'TextRun',
                  text: teamsText(notification.title, MAX_TITLE_LENGTH),
                  weight: 'Bolder',
                  size: 'Medium',
                  color: COLOR[notification.severity],
                },
              ],
            },
            {
              type: 'RichTextBlock',
              inlines: [
                {
                  type: 'TextRun',
                  text: teamsText(`${notification.event_type} · ${notification.severity}`),
                  isSubtle: true,
                },
              ],
            },
            ...facts,
          ],
        },
      },
    ],
  };
}

export const teamsConnector = chatWebhookConnector('teams', 'workflow_url', teamsMessage);
