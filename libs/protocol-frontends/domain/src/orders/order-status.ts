import { AcmeProblem } from '../problems/acme-problem';

/** RFC 8555 7.1.6: the states of an order. */
export const ORDER_STATUSES = ['pending', 'ready', 'processing', 'valid', 'invalid'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

/** Everything that moves an order (RFC 8555 7.1.6, figure "State Transitions for Order Objects"). */
export type OrderEvent =
  /** The last of its authorizations became valid. */
  | { kind: 'authorizations-valid' }
  /** One of its authorizations became invalid, deactivated, expired or revoked. */
  | { kind: 'authorization-failed' }
  /** The client posted a CSR to the finalize URL. */
  | { kind: 'finalize' }
  /** The issuer returned the certificate. */
  | { kind: 'issued' }
  /** The issuer refused or failed. */
  | { kind: 'issuance-failed' }
  /** The order's `expires` passed before it was finalized. */
  | { kind: 'expire' };

export type OrderTransition = { ok: true; to: OrderStatus } | { ok: false; problem: AcmeProblem };

/** The order state machine: pure, total over every (status, event) pair. */
export function nextOrderStatus(from: OrderStatus, event: OrderEvent): OrderTransition {
  const refuse = (why: string, type: 'malformed' | 'orderNotReady' = 'malformed'): OrderTransition => ({
    ok: false,
    problem: new AcmeProblem(type, `cannot ${event.kind} an order that is ${from}: ${why}`),
  });
  switch (event.kind) {
    case 'authorizations-valid':
      return from === 'pending' ? { ok: true, to: 'ready' } : refuse('only a pending order becomes ready');
    case 'authorization-failed':
      return from === 'pending' || from === 'ready'
        ? { ok: true, to: 'invalid' }
        : refuse('it no longer depends on its authorizations');
    case 'finalize':
      // RFC 8555 7.4: "If the order is not in the 'ready' state, the server MUST return orderNotReady".
      return from === 'ready'
        ? { ok: true, to: 'processing' }
        : refuse('only a ready order is finalized', 'orderNotReady');
    case 'issued':
    case 'issuance-failed':
      return from === 'processing'
        ? { ok: true, to: event.kind === 'issued' ? 'valid' : 'invalid' }
        : refuse('it is not being issued');
    case 'expire':
      // A processing order has been handed to the issuer; its outcome, not the clock, ends it.
      return from === 'pending' || from === 'ready'
        ? { ok: true, to: 'invalid' }
        : refuse('it is past the point where it can expire');
  }
}

/**
 * What the authorizations of a pending order make of it: ready when all are valid, invalid as soon
 * as one can no longer become valid, still pending otherwise.
 */
export function orderEventFromAuthorizations(statuses: readonly string[]): OrderEvent | null {
  if (statuses.some((s) => s !== 'pending' && s !== 'valid')) return { kind: 'authorization-failed' };
  if (statuses.length > 0 && statuses.every((s) => s === 'valid')) return { kind: 'authorizations-valid' };
  return null;
}
