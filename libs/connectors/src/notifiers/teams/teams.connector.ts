import { NotifierConnector, OutboundNotification, SendResult } from '../notifier-connector';
import { httpOutcome, OutboundHttp } from '../outbound/outbound-http';

/** Secrets: `workflow_url`, the Teams workflow ("Post to a channel when a webhook request is received"). */
export interface TeamsConfig {
  workflowUrl: string;
}

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

export const teamsConnector: NotifierConnector<TeamsConfig> = {
  kind: 'teams',
  parse(_settings, secrets) {
    const url = secrets.workflow_url;
    if (typeof url !== 'string' || !/^https?:\/\/[^\s]+$/.test(url))
      return { invalid: 'workflow_url must be an http(s) URL' };
    return { workflowUrl: url };
  },
  async send(
    config: TeamsConfig,
    notification: OutboundNotification,
    http: OutboundHttp,
    now: Date,
  ): Promise<SendResult> {
    const response = await http.send({
      method: 'POST',
      url: config.workflowUrl,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(teamsMessage(notification)),
    });
    return httpOutcome(response, now);
  },
};
