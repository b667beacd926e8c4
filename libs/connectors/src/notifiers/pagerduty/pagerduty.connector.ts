import { alertIdentity, baseUrl } from '../alerting/alert-identity';
import { NotifierConnector, OutboundNotification, SendResult } from '../notifier-connector';
import { httpOutcome, OutboundHttp } from '../outbound/outbound-http';
import { boundedKey, cut, fitJson } from '../text-limits';

/** Settings: `api_url` (default the Events API v2 host). Secrets: `routing_key` (32 characters). */
export interface PagerDutyConfig {
  apiUrl: string;
  routingKey: string;
}

export const PAGERDUTY_EVENTS_URL = 'https://events.pagerduty.com';

/**
 * The Events API v2's documented limits: `summary` 1,024 characters, `dedup_key` 255, the whole
 * event 512 KB. An event above one is refused with a 400, which is final.
 */
export const PAGERDUTY_LIMITS = { summary: 1_024, dedupKey: 255, eventBytes: 512_000 } as const;

/** Events API v2: trigger on bad news, resolve on good news, one dedup_key per certificate and problem. */
export function pagerDutyEvent(
  routingKey: string,
  notification: OutboundNotification,
): Record<string, unknown> {
  return JSON.parse(pagerDutyEventBody(routingKey, notification)) as Record<string, unknown>;
}

/** The event as sent: at most 512,000 bytes, the longest `custom_details` values cut to fit. */
export function pagerDutyEventBody(routingKey: string, notification: OutboundNotification): string {
  const { key, action } = alertIdentity(notification);
  const dedupKey = boundedKey(key, PAGERDUTY_LIMITS.dedupKey);
  if (action === 'close')
    return JSON.stringify({ routing_key: routingKey, event_action: 'resolve', dedup_key: dedupKey });
  return fitJson(notification.details, PAGERDUTY_LIMITS.eventBytes, (details) => ({
    routing_key: routingKey,
    event_action: 'trigger',
    dedup_key: dedupKey,
    payload: {
      summary: cut(notification.title, PAGERDUTY_LIMITS.summary),
      source: 'certlane',
      severity: notification.severity,
      timestamp: notification.occurred_at,
      component: notification.certificate_id ?? undefined,
      class: notification.event_type,
      custom_details: details,
    },
  }));
}

export const pagerDutyConnector: NotifierConnector<PagerDutyConfig> = {
  kind: 'pagerduty',
  settingKeys: ['api_url'],
  secretDestinations: ['api_url'],
  parse(settings, secrets) {
    const apiUrl = baseUrl(settings.api_url, PAGERDUTY_EVENTS_URL);
    if (typeof apiUrl !== 'string') return apiUrl;
    const routingKey = secrets.routing_key;
    if (typeof routingKey !== 'string' || !/^[A-Za-z0-9]{32}$/.test(routingKey))
      return { invalid: 'routing_key must be the 32-character integration key' };
    return { apiUrl, routingKey };
  },
  async send(
    config: PagerDutyConfig,
    notification: OutboundNotification,
    http: OutboundHttp,
    now: Date,
  ): Promise<SendResult> {
    const response = await http.send({
      method: 'POST',
      url: `${config.apiUrl}/v2/enqueue`,
      headers: { 'content-type': 'application/json' },
      body: pagerDutyEventBody(config.routingKey, notification),
    });
    return httpOutcome(response, now);
  },
};
