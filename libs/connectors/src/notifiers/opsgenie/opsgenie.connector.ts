import { alertIdentity, baseUrl } from '../alerting/alert-identity';
import { NotifierConnector, OutboundNotification, SendResult } from '../notifier-connector';
import { httpOutcome, OutboundHttp } from '../outbound/outbound-http';
import { boundedKey, cut, fitDetails } from '../text-limits';

/** Settings: `region` (`us` or `eu`), `api_url` (overrides the region). Secrets: `api_key`. */
export interface OpsGenieConfig {
  apiUrl: string;
  apiKey: string;
}

export const OPSGENIE_URLS = { us: 'https://api.opsgenie.com', eu: 'https://api.eu.opsgenie.com' } as const;

const PRIORITY = { info: 'P5', warning: 'P3', critical: 'P1' } as const;

/**
 * The Alert API's documented limits ("Create Alert", JSON body fields): a request above one is
 * refused with a 4xx, which is final, so the alert would never be raised.
 */
export const OPSGENIE_LIMITS = {
  message: 130,
  alias: 512,
  description: 15_000,
  /** Keys and values of `details` together. */
  details: 8_000,
  tags: 20,
  tag: 50,
  source: 100,
  note: 25_000,
} as const;

/** The alias of a notification's alert, the same when it is opened and when it is closed. */
export function opsGenieAlias(notification: OutboundNotification): string {
  return boundedKey(alertIdentity(notification).key, OPSGENIE_LIMITS.alias);
}

/** The Alert API request: create with an alias, or close by that alias. */
export function opsGenieRequest(notification: OutboundNotification): {
  path: string;
  body: Record<string, unknown>;
} {
  const { action } = alertIdentity(notification);
  const alias = opsGenieAlias(notification);
  if (action === 'close')
    return {
      path: `/v2/alerts/${encodeURIComponent(alias)}/close?identifierType=alias`,
      body: { source: 'certlane', note: cut(notification.title, OPSGENIE_LIMITS.note) },
    };
  const details = Object.fromEntries(
    Object.entries(notification.details).map(([k, v]) => [k, String(v ?? '')]),
  );
  return {
    path: '/v2/alerts',
    body: {
      message: cut(notification.title, OPSGENIE_LIMITS.message),
      alias,
      description: cut(`${notification.event_type}: ${notification.title}`, OPSGENIE_LIMITS.description),
      priority: PRIORITY[notification.severity],
      source: 'certlane',
      tags: [cut(notification.event_type, OPSGENIE_LIMITS.tag)].slice(0, OPSGENIE_LIMITS.tags),
      details: fitDetails(details, OPSGENIE_LIMITS.details),
    },
  };
}

export const opsGenieConnector: NotifierConnector<OpsGenieConfig> = {
  kind: 'opsgenie',
  settingKeys: ['region', 'api_url'],
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
