import { alertIdentity, baseUrl } from '../alerting/alert-identity';
import { NotifierConnector, OutboundNotification, SendResult } from '../notifier-connector';
import { httpOutcome, OutboundHttp } from '../outbound/outbound-http';

/** Settings: `api_url` (default the Events API v2 host). Secrets: `routing_key` (32 characters). */
export interface PagerDutyConfig {
  apiUrl: string;
  routingKey: string;
}

export const PAGERDUTY_EVENTS_URL = 'https://events.pagerduty.com';

/** Events API v2: trigger on bad news, resolve on good news, one dedup_key per certificate and problem. */
export function pagerDutyEvent(
  routingKey: string,
  notification: OutboundNotification,
): Record<string, unknown> {
  const { key, action } = alertIdentity(notification);
  if (action === 'close') return { routing_key: routingKey, event_action: 'resolve', dedup_key: key };
  return {
    routing_key: routingKey,
    event_action: 'trigger',
    dedup_key: key,
    payload: {
      summary: notification.title.slice(0, 1024),
      source: 'certlane',
      severity: notification.severity,
      timestamp: notification.occurred_at,
      component: notification.certificate_id ?? undefined,
      class: notification.event_type,
      custom_details: notification.details,
    },
  };
}

export const pagerDutyConnector: NotifierConnector<PagerDutyConfig> = {
  kind: 'pagerduty',
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
      body: JSON.stringify(pagerDutyEvent(config.routingKey, notification)),
    });
    return httpOutcome(response, now);
  },
};
