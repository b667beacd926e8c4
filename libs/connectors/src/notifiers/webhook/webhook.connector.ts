import { NotifierConnector, OutboundNotification, SendResult } from '../notifier-connector';
import { httpOutcome, OutboundHttp } from '../outbound/outbound-http';
import { standardWebhookHeaders, WEBHOOK_SECRET_PATTERN } from './standard-webhooks';

/** Settings: none in clear. Secrets: `url` (it may carry a token) and `secret` (`whsec_...`). */
export interface WebhookConfig {
  url: string;
  secret: string;
}

/** The JSON body of a generic webhook (docs/notifications.md, "Webhook payload"). */
export function webhookBody(notification: OutboundNotification): string {
  return JSON.stringify({
    type: notification.event_type,
    timestamp: notification.occurred_at,
    data: {
      notification_id: notification.id,
      severity: notification.severity,
      title: notification.title,
      dedup_key: notification.dedup_key,
      certificate_id: notification.certificate_id,
      details: notification.details,
    },
  });
}

/** The generic webhook: JSON, signed the Standard Webhooks way so receivers verify and refuse replays. */
export const webhookConnector: NotifierConnector<WebhookConfig> = {
  kind: 'webhook',
  parse(_settings, secrets) {
    const { url, secret } = secrets;
    if (typeof url !== 'string' || !/^https?:\/\//.test(url))
      return { invalid: 'url must be an http(s) URL' };
    try {
      new URL(url);
    } catch {
      return { invalid: 'url must be an http(s) URL' };
    }
    if (typeof secret !== 'string' || !WEBHOOK_SECRET_PATTERN.test(secret))
      return { invalid: 'secret must be a whsec_ secret (base64 of 24 to 64 bytes)' };
    return { url, secret };
  },
  async send(
    config: WebhookConfig,
    notification: OutboundNotification,
    http: OutboundHttp,
    now: Date,
  ): Promise<SendResult> {
    const body = webhookBody(notification);
    const response = await http.send({
      method: 'POST',
      url: config.url,
      headers: {
        'content-type': 'application/json',
        'user-agent': 'certlane-notifier',
        ...standardWebhookHeaders(config.secret, `msg_${notification.id}`, now, body),
      },
      body,
    });
    return httpOutcome(response, now);
  },
};
