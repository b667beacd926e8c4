import { NotifierConnector, OutboundNotification, SendResult } from '../notifier-connector';
import { httpOutcome, OutboundHttp } from '../outbound/outbound-http';
import { cut, fitJson } from '../text-limits';
import { standardWebhookHeaders, WEBHOOK_SECRET_PATTERN } from './standard-webhooks';

/** Settings: none in clear. Secrets: `url` (it may carry a token) and `secret` (`whsec_...`). */
export interface WebhookConfig {
  url: string;
  secret: string;
}

/**
 * A generic receiver documents no size, but common ones refuse large bodies (Express's JSON
 * parser: 100 KB by default) with a 413, which is final. The body is kept to 64 KiB: the title to
 * 1,024 characters and the longest `details` values cut to fit (docs/notifications.md).
 */
export const WEBHOOK_LIMITS = { bodyBytes: 64 * 1024, title: 1_024 } as const;

/** The JSON body of a generic webhook (docs/notifications.md, "Webhook payload"). */
export function webhookBody(notification: OutboundNotification): string {
  return fitJson(notification.details, WEBHOOK_LIMITS.bodyBytes, (details) => ({
    type: notification.event_type,
    timestamp: notification.occurred_at,
    data: {
      notification_id: notification.id,
      severity: notification.severity,
      title: cut(notification.title, WEBHOOK_LIMITS.title),
      dedup_key: notification.dedup_key,
      certificate_id: notification.certificate_id,
      details,
    },
  }));
}

/** The generic webhook: JSON, signed the Standard Webhooks way so receivers verify and refuse replays. */
export const webhookConnector: NotifierConnector<WebhookConfig> = {
  kind: 'webhook',
  settingKeys: [],
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
