/**
 * Discovered-certificate statuses (spec 2.14; the machine is ours, ADR 0057). A certificate found
 * for the first time is Unmanaged; an operator claims it (it becomes a managed certificate) or
 * dismisses it. Re-discovery never changes the status: it only moves last_seen.
 */
export const DISCOVERED_STATUSES = ['Unmanaged', 'Claimed', 'Dismissed'] as const;
export type DiscoveredStatus = (typeof DISCOVERED_STATUSES)[number];

export type DiscoveredTrigger = 'claim' | 'dismiss' | 'rediscover';

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
