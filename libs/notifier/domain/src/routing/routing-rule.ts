import {
  NotificationEvent,
  NotificationEventType,
  Severity,
  severityRank,
} from '../events/notification-event';

/**
 * A routing rule: which events go to which notifiers. An empty list matches anything; a
 * non-empty one matches an event whose attribute is in it (an event without the attribute does
 * not match a rule that names values for it).
 */
export interface RoutingRule {
  id: string;
  enabled: boolean;
  event_types: NotificationEventType[];
  min_severity: Severity;
  owner_ids: string[];
  team_ids: string[];
  environments: string[];
  issuer_ids: string[];
  notifier_ids: string[];
}

const inList = (values: string[], value: string | null): boolean =>
  values.length === 0 || (value !== null && values.includes(value));

export function ruleMatches(rule: RoutingRule, event: NotificationEvent): boolean {
  return (
    rule.enabled &&
    severityRank(event.severity) >= severityRank(rule.min_severity) &&
    (rule.event_types.length === 0 || rule.event_types.includes(event.type)) &&
    inList(rule.owner_ids, event.owner_id) &&
    inList(rule.team_ids, event.team_id) &&
    inList(rule.environments, event.environment) &&
    inList(rule.issuer_ids, event.issuer_id)
  );
}

/** One delivery to plan: a notifier and, for email, the contact addresses it adds. */
export interface PlannedDelivery {
  notifier_id: string;
  recipients: string[];
  dedup_key: string;
}

/** Contact addresses of owners and teams (the email notifier sends to them too). */
export interface Contacts {
  owners: ReadonlyMap<string, string[]>;
  teams: ReadonlyMap<string, string[]>;
}

/**
 * The deliveries an event causes: one per notifier named by any matching rule, however many
 * rules name it, so one event reaches one notifier (and each of its recipients) once. Recipients
 * are the event's owner's and team's contact addresses, deduplicated case-insensitively.
 * The delivery's dedup key is the event's key and the notifier: stored unique, it also absorbs a
 * second copy of the same event.
 */
export function planDeliveries(
  rules: readonly RoutingRule[],
  event: NotificationEvent,
  contacts: Contacts,
): PlannedDelivery[] {
  const notifierIds = new Set<string>();
  for (const rule of rules)
    if (ruleMatches(rule, event)) for (const id of rule.notifier_ids) notifierIds.add(id);
  const recipients = uniqueAddresses([
    ...(event.owner_id ? (contacts.owners.get(event.owner_id) ?? []) : []),
    ...(event.team_id ? (contacts.teams.get(event.team_id) ?? []) : []),
  ]);
  return [...notifierIds].sort().map((notifier_id) => ({
    notifier_id,
    recipients,
    dedup_key: deliveryDedupKey(event.dedup_key, notifier_id),
  }));
}

export const deliveryDedupKey = (eventKey: string, notifierId: string): string => `${eventKey}|${notifierId}`;

function uniqueAddresses(addresses: string[]): string[] {
  const seen = new Map<string, string>();
  for (const address of addresses) {
    const key = address.trim().toLowerCase();
    if (key && !seen.has(key)) seen.set(key, address.trim());
  }
  return [...seen.values()];
}
