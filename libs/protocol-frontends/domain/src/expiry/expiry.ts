import { AuthorizationStatus } from '../authorizations/authorization-status';
import { OrderStatus } from '../orders/order-status';

/** How long the objects of an order live (Boulder's defaults; configurable per deployment later). */
export interface AcmeLifetimes {
  /** A pending authorization and a pending or ready order. */
  pendingMs: number;
  /** A valid authorization, reusable by later orders of the same account until then. */
  validAuthorizationMs: number;
}

export const DEFAULT_ACME_LIFETIMES: AcmeLifetimes = {
  pendingMs: 7 * 24 * 3600_000,
  validAuthorizationMs: 30 * 24 * 3600_000,
};

export function isPast(expires: Date, now: Date): boolean {
  return expires.getTime() <= now.getTime();
}

/**
 * The status an authorization has at `now`: stored rows are moved by the GC loop, so a reader
 * may see an authorization whose time ran out before the loop did; it is expired all the same.
 */
export function effectiveAuthorizationStatus(
  authorization: { status: AuthorizationStatus; expires: Date },
  now: Date,
): AuthorizationStatus {
  const { status, expires } = authorization;
  return (status === 'pending' || status === 'valid') && isPast(expires, now) ? 'expired' : status;
}

/** The status an order has at `now` (RFC 8555 7.1.3: an expired pending or ready order is invalid). */
export function effectiveOrderStatus(order: { status: OrderStatus; expires: Date }, now: Date): OrderStatus {
  const { status, expires } = order;
  return (status === 'pending' || status === 'ready') && isPast(expires, now) ? 'invalid' : status;
}

/**
 * When a new order expires: its pending lifetime, but never after the earliest of the
 * authorizations it reuses (the order cannot be finalized once one of them has expired).
 */
export function orderExpiry(
  now: Date,
  authorizationExpiries: readonly Date[],
  lifetimes = DEFAULT_ACME_LIFETIMES,
): Date {
  const own = now.getTime() + lifetimes.pendingMs;
  return new Date(Math.min(own, ...authorizationExpiries.map((d) => d.getTime())));
}

/**
 * Whether a valid authorization may be reused by a new order: it must outlive a minimum margin
 * so the order does not turn invalid while the client is still finalizing.
 */
export function isReusableAuthorization(
  authorization: { status: AuthorizationStatus; expires: Date },
  now: Date,
  marginMs = 24 * 3600_000,
): boolean {
  return authorization.status === 'valid' && authorization.expires.getTime() - now.getTime() > marginMs;
}

/**
 * The latest the enrollment approval a finalize opens may wait for its decision: never past the
 * order's expiry (which the order's authorizations bound, and a dns-persist-01 record's
 * `persistUntil`), so nothing is issued on a validation past its life, nor, when CAA was checked
 * at `now`, past that check's useful life (`caaRecheckMs`). An absolute time, so the hop to
 * issuance cannot stretch it.
 */
export function approvalDeadline(orderExpires: Date, now: Date, caaRecheckMs: number | null): Date {
  if (caaRecheckMs === null) return orderExpires;
  return new Date(Math.min(orderExpires.getTime(), now.getTime() + caaRecheckMs));
}
