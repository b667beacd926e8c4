import { NotifierConnector, NotifierKind, OutboundNotification, SendResult } from './notifier-connector';
import { httpOutcome, OutboundHttp } from './outbound/outbound-http';

/** A chat webhook's one setting: its URL, a secret (its path is the token). */
export interface ChatWebhookConfig {
  url: string;
}

/**
 * A notifier that POSTs one JSON message to a webhook URL held in the secret `urlSecret`
 * (Slack's incoming webhook, a Teams workflow): the kinds differ only in the message.
 */
export function chatWebhookConnector(
  kind: NotifierKind,
  urlSecret: string,
  message: (notification: OutboundNotification) => Record<string, unknown>,
): NotifierConnector<ChatWebhookConfig> {
  return {
    kind,
    settingKeys: [],
    parse(_settings, secrets) {
      const url = secrets[urlSecret];
      if (typeof url !== 'string' || !/^https?:\/\/[^\s]+$/.test(url))
        return { invalid: `${urlSecret} must be an http(s) URL` };
      return { url };
    },
    async send(
      config: ChatWebhookConfig,
      notification: OutboundNotification,
      http: OutboundHttp,
      now: Date,
    ): Promise<SendResult> {
      const response = await http.send({
        method: 'POST',
        url: config.url,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(message(notification)),
      });
      return httpOutcome(response, now);
    },
  };
}
