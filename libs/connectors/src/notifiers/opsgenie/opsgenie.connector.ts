import { alertIdentity, baseUrl } from '../alerting/alert-identity';
import { NotifierConnector, OutboundNotification, SendResult } from '../notifier-connector';
import { httpOutcome, OutboundHttp } from '../outbound/outbound-http';

/** Settings: `region` (`us` or `eu`), `api_url` (overrides the region). Secrets: `api_key`. */
export interface OpsGenieConfig {
  apiUrl: string;
  apiKey: string;
}

export const OPSGENIE_URLS = { us: 'https://api.opsgenie.com', eu: 'https://api.eu.opsgenie.com' } as const;

const PRIORITY = { info: 'P5', warning: 'P3', critical: 'P1' } as const;

/** The Alert API request: create with an alias, or close by that alias. */
export function opsGenieRequest(notification: OutboundNotification): {
  path: string;
  body: Record<string, unknown>;
} {
  const { key, action } = alertIdentity(notification);
  if (action === 'close')
    return {
      path: `/v2/alerts/${encodeURIComponent(key)}/close?identifierType=alias`,
      body: { source: 'certlane', note: notification.title },
    };
  return {
    path: '/v2/alerts',
    body: {
      message: notification.title.slice(0, 130),
      alias: key.slice(0, 512),
      description: `${notification.event_type}: ${notification.title}`.slice(0, 15000),
      priority: PRIORITY[notification.severity],
      source: 'certlane',
      tags: [notification.event_type],
      details: Object.fromEntries(Object.entries(notification.details).map(([k, v]) => [k, String(v ?? '')])),
    },
  };
}

export const opsGenieConnector: NotifierConnector<OpsGenieConfig> = {
  kind: 'opsgenie',
  secretDestinations: ['api_url', 'region'],
  parse(settings, secrets) {
    const region = settings.region ?? 'us';
    if (region !== 'us' && region !== 'eu') return { invalid: 'region must be us or eu' };
    const apiUrl = baseUrl(settings.api_url, OPSGENIE_URLS[region]);
    if (typeof apiUrl !== 'string') return apiUrl;
    const apiKey = secrets.api_key;
    if (typeof apiKey !== 'string' || !/^[A-Za-z0-9-]{16,64}$/.test(apiKey))
      return { invalid: 'api_key must be an OpsGenie API key' };
    return { apiUrl, apiKey };
  },
  async send(
    config: OpsGenieConfig,
    notification: OutboundNotification,
    http: OutboundHttp,
    now: Date,
  ): Promise<SendResult> {
    const { path, body } = opsGenieRequest(notification);
    const response = await http.send({
      method: 'POST',
      url: `${config.apiUrl}${path}`,
      headers: { 'content-type': 'application/json', authorization: `GenieKey ${config.apiKey}` },
      body: JSON.stringify(body),
    });
    return httpOutcome(response, now);
  },
};
