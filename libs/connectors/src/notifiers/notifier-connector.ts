import { OutboundHttp } from './outbound/outbound-http';

export const NOTIFIER_KINDS = ['email', 'webhook', 'slack', 'teams', 'pagerduty', 'opsgenie'] as const;
export type NotifierKind = (typeof NOTIFIER_KINDS)[number];

/** What a notifier sends: one notification, already routed (docs/notifications.md). */
export interface OutboundNotification {
  /** The notification id; the webhook's `webhook-id`, stable across retries. */
  id: string;
  event_type: string;
  severity: 'info' | 'warning' | 'critical';
  title: string;
  /** Names the fact (certificate, threshold...): PagerDuty's dedup_key, OpsGenie's alias. */
  dedup_key: string;
  certificate_id: string | null;
  recipients: string[];
  details: Record<string, string | number | null>;
  occurred_at: string;
  /**
   * A message prepared by the notifier (the digest): email sends it as is and only to
   * `recipients` (one owner's or team's contacts), not to the notifier's own `to`.
   */
  body?: { subject: string; text: string; html: string };
  /**
   * Per-recipient memory of earlier attempts (email): addresses that accepted the message, and
   * addresses whose server refused them for good (5yz). Neither is sent to again; a requeue
   * forgets the refused ones (ADR 0056, amendment "one message, several recipients").
   */
  delivered_to?: readonly string[];
  refused_to?: readonly string[];
}

/** What one attempt did per recipient (email): accepted, and refused for good (5yz). */
export interface RecipientOutcome {
  delivered: string[];
  refused: string[];
}

/**
 * The result of one attempt. `retryAfterSeconds` carries a receiver's Retry-After (429 or 503),
 * which the delivery state machine honours when it is later than its own backoff. `final`: the
 * receiver refused the message itself (an HTTP 4xx other than 408, 425 and 429; an SMTP 5yz),
 * so sending it again cannot succeed.
 */
export type SendResult =
  | { ok: true; recipients?: RecipientOutcome }
  | { ok: false; error: string; retryAfterSeconds?: number; final?: boolean; recipients?: RecipientOutcome };

/** A notifier kind: settings and secrets already opened by the service, never logged. */
export interface NotifierConnector<Config = unknown> {
  kind: NotifierKind;
  /**
   * The settings keys the kind reads (besides the delivery limits every kind has). Any other key
   * is refused when a notifier is written: a secret put in `settings` by mistake would be stored
   * and answered in clear (ADR 0056, amendment "sizes the receivers accept").
   */
  settingKeys: readonly string[];
  /**
   * The settings that decide where the secrets are sent (a host, an API URL). Changing one sends
   * the stored secrets somewhere new, so an update that changes one must bring the secrets again.
   */
  secretDestinations?: readonly string[];
  /** Checks stored settings plus opened secrets; returns the config or the reason it is unusable. */
  parse(settings: Record<string, unknown>, secrets: Record<string, unknown>): Config | { invalid: string };
  send(
    config: Config,
    notification: OutboundNotification,
    http: OutboundHttp,
    now: Date,
  ): Promise<SendResult>;
}
