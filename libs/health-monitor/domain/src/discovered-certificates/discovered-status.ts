/**
 * Discovered-certificate statuses (spec 2.14; the machine is ours, ADR 0057). A certificate found
 * for the first time is Unmanaged; an operator claims it (it becomes a managed certificate) or
 * dismisses it. Re-discovery never changes the status: it only moves last_seen.
 */
export const DISCOVERED_STATUSES = ['Unmanaged', 'Claimed', 'Dismissed'] as const;
export type DiscoveredStatus = (typeof DISCOVERED_STATUSES)[number];

/** `vanish`: a complete run of every place the certificate was seen no longer found it. */
export type DiscoveredTrigger = 'claim' | 'dismiss' | 'rediscover' | 'vanish';

export type DiscoveredTransition =
  | { ok: true; to: DiscoveredStatus; changed: boolean }
  | { ok: false; code: 'discovered_certificate_claimed'; message: string };

/** Pure, total over every (status, trigger) pair. */
export function nextDiscoveredStatus(
  from: DiscoveredStatus,
  trigger: DiscoveredTrigger,
): DiscoveredTransition {
  const stay: DiscoveredTransition = { ok: true, to: from, changed: false };
  switch (trigger) {
    case 'rediscover':
    case 'vanish':
      // Being seen again or no longer is presence (below), never a triage decision.
      return stay;
    case 'claim':
      // A dismissed certificate can still be claimed: the operator changed their mind.
      if (from === 'Claimed') {
        return {
          ok: false,
          code: 'discovered_certificate_claimed',
          message: 'the certificate is already claimed',
        };
      }
      return { ok: true, to: 'Claimed', changed: true };
    case 'dismiss':
      if (from === 'Claimed') {
        return {
          ok: false,
          code: 'discovered_certificate_claimed',
          message: 'a claimed certificate is managed; archive the managed certificate instead',
        };
      }
      return from === 'Dismissed' ? stay : { ok: true, to: 'Dismissed', changed: true };
  }
}

/**
 * Presence, the second axis beside the status (ADR 0063): where a certificate was seen is
 * `present` until a complete run of that place's scope (a completed scan of the same scan target,
 * an agent's complete walk, a cloud sentinel's completed run) does not find it again; then that
 * sighting is `gone`, and the certificate is gone once all its sightings are. Any new sighting
 * makes it (and that place) present again. A failed or partial run never marks anything gone.
 */
export const DISCOVERY_PRESENCES = ['present', 'gone'] as const;
export type DiscoveryPresence = (typeof DISCOVERY_PRESENCES)[number];

export type PresenceTrigger =
  { kind: 'seen' } | { kind: 'missed'; runComplete: boolean; presentElsewhere: boolean };

/** Pure, total over every (presence, trigger) pair. */
export function nextPresence(from: DiscoveryPresence, trigger: PresenceTrigger): DiscoveryPresence {
  if (trigger.kind === 'seen') return 'present';
  if (!trigger.runComplete || trigger.presentElsewhere) return from;
  return 'gone';
}
