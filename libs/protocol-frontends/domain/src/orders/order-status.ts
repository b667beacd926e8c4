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
  /** The issuer refused or failed (also an approved enrollment issuance could not issue). */
  | { kind: 'issuance-failed' }
  /** The enrollment approval a finalize opened (ADR 0065, 0068) is still undecided. */
  | { kind: 'approval-pending' }
  /** An approver rejected the enrollment approval. */
  | { kind: 'approval-rejected' }
  /** Nobody decided the enrollment approval before its deadline. */
  | { kind: 'approval-expired' }
  /** The order's `expires` passed before it was finalized. */
  | { kind: 'expire' }
  /** Its account was deactivated (RFC 8555 7.3.6: the server SHOULD cancel its pending operations). */
  | { kind: 'account-deactivated' }
  /**
   * It outlived the longest a finalize can take (the replica finalizing it stopped), or, waiting
   * for an approval, its expiry while issuance could not say how the approval ended.
   */
  | { kind: 'abandoned' };

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
    case 'approval-pending':
      // RFC 8555 7.4: the order stays processing while the certificate is not yet issued.
      return from === 'processing' ? { ok: true, to: 'processing' } : refuse('it is not being issued');
    case 'approval-rejected':
    case 'approval-expired':
    case 'abandoned':
      return from === 'processing' ? { ok: true, to: 'invalid' } : refuse('it is not being issued');
    case 'expire':
      // A processing order has been handed to the issuer; its outcome, not the clock, ends it.
      return from === 'pending' || from === 'ready'
        ? { ok: true, to: 'invalid' }
        : refuse('it is past the point where it can expire');
    case 'account-deactivated':
      // A processing order may still wait for an approval: it ends too, and its approval with it.
      return from === 'valid' || from === 'invalid' ? refuse('it has ended') : { ok: true, to: 'invalid' };
  }
}

/** The statuses `event` moves an order from: what a statement applying it to many orders selects. */
export function statusesMovedBy(event: OrderEvent): OrderStatus[] {
  return ORDER_STATUSES.filter((status) => nextOrderStatus(status, event).ok);
}

/** The error of an order its account's deactivation ended (RFC 8555 7.3.6). */
export function accountDeactivatedProblem(): AcmeProblem {
  return new AcmeProblem('unauthorized', 'the account was deactivated, and its unfinished orders with it');
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

/** Where an enrollment approval stands, as issuance answers it (ADR 0065). */
export type EnrollmentApprovalState = 'pending' | 'issued' | 'rejected' | 'expired' | 'failed';

/** What the enrollment approval of a processing order (a profile requiring approval) makes of it. */
export function orderEventFromApproval(state: EnrollmentApprovalState): OrderEvent {
  switch (state) {
    case 'pending':
      return { kind: 'approval-pending' };
    case 'issued':
      return { kind: 'issued' };
    case 'rejected':
      return { kind: 'approval-rejected' };
    case 'expired':
      return { kind: 'approval-expired' };
    case 'failed':
      return { kind: 'issuance-failed' };
  }
}

/**
 * The error of an order its approval ended (RFC 8555 7.1.3 `error`): the approver's reason when
 * rejected. `unauthorized`: the server will not issue for this request.
 */
export function approvalEndedProblem(
  state: Exclude<EnrollmentApprovalState, 'pending' | 'issued'>,
  reason: string | null,
): AcmeProblem {
  switch (state) {
    case 'rejected':
      return new AcmeProblem(
        'unauthorized',
        `the certificate request was rejected by an approver${reason ? `: ${reason}` : ''}`,
      );
    case 'expired':
      return new AcmeProblem('unauthorized', 'the certificate request was not approved before its deadline');
    case 'failed':
      return new AcmeProblem(
        'serverInternal',
        `the approved certificate could not be issued${reason ? `: ${reason}` : ''}`,
      );
  }
}

/**
 * How long a processing order without an approval may stay so before the sweep ends it: longer
 * than any finalize can take. A finalize waits for issue-and-record (a bus request, sent a second
 * time when issuance refuses only the owner) and a few statements; past that its replica stopped
 * between taking the order and storing the certificate, and the client would poll for ever.
 */
export function finalizeAbandonedAfterMs(busRequestTimeoutMs: number): number {
  return Math.max(10 * 60_000, 4 * busRequestTimeoutMs);
}

/** The error of an order the sweep ended (`abandoned`): the client orders again. */
export function abandonedOrderProblem(awaitedApproval: boolean): AcmeProblem {
  return awaitedApproval
    ? new AcmeProblem(
        'serverInternal',
        'the certificate request was not decided before the order expired, or its decision could not be read; create a new order',
      )
    : new AcmeProblem(
        'serverInternal',
        'the finalization was interrupted before the certificate was stored; create a new order',
      );
}
