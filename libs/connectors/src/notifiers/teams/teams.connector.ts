import { chatWebhookConnector } from '../chat-webhook';
import { OutboundNotification } from '../notifier-connector';

const COLOR = { info: 'Accent', warning: 'Warning', critical: 'Attention' } as const;

/** The workflow request: a message with one Adaptive Card attachment (schema 1.4). */
export function teamsMessage(notification: OutboundNotification): Record<string, unknown> {
  const facts = Object.entries(notification.details)
    .filter(([, value]) => value !== null && value !== '')
    .map(([title, value]) => ({ title, value: String(value) }));
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
              type: 'TextBlock',
              text: notification.title,
              weight: 'Bolder',
              size: 'Medium',
              wrap: true,
              color: COLOR[notification.severity],
            },
            {
              type: 'TextBlock',
              text: `${notification.event_type} · ${notification.severity}`,
              isSubtle: true,
              wrap: true,
            },
            { type: 'FactSet', facts },
          ],
        },
      },
    ],
  };
}

export const teamsConnector = chatWebhookConnector('teams', 'workflow_url', teamsMessage);
