import { AUTHORIZATION_STATUSES } from '../authorizations/authorization-status';
import { ORDER_STATUSES } from '../orders/order-status';
import {
  approvalDeadline,
  DEFAULT_ACME_LIFETIMES,
  effectiveAuthorizationStatus,
  effectiveOrderStatus,
  isReusableAuthorization,
  orderExpiry,
} from './expiry';

const now = new Date('2026-11-24T12:00:00Z');
const past = new Date(now.getTime() - 1);
const future = new Date(now.getTime() + 1000);

describe('effectiveAuthorizationStatus', () => {
  const whenPast = {
    pending: 'expired',
    valid: 'expired',
    invalid: 'invalid',
    deactivated: 'deactivated',
    expired: 'expired',
    revoked: 'revoked',
  };
  it.each(AUTHORIZATION_STATUSES.map((s) => [s, whenPast[s]]))(
    '%s past its expiry reads as %s',
    (status, want) => {
      expect(effectiveAuthorizationStatus({ status, expires: past }, now)).toBe(want);
    },
  );
  it.each(AUTHORIZATION_STATUSES.map((s) => [s]))('%s before its expiry is unchanged', (status) => {
    expect(effectiveAuthorizationStatus({ status, expires: future }, now)).toBe(status);
  });
  it('is expired at the exact instant of expiry', () => {
    expect(effectiveAuthorizationStatus({ status: 'pending', expires: now }, now)).toBe('expired');
  });
});

describe('effectiveOrderStatus', () => {
  const whenPast = {
    pending: 'invalid',
    ready: 'invalid',
    processing: 'processing',
    valid: 'valid',
    invalid: 'invalid',
  };
  it.each(ORDER_STATUSES.map((s) => [s, whenPast[s]]))(
    'RFC 8555 7.1.3: %s past its expiry reads as %s',
    (status, want) => {
      expect(effectiveOrderStatus({ status, expires: past }, now)).toBe(want);
    },
  );
  it.each(ORDER_STATUSES.map((s) => [s]))('%s before its expiry is unchanged', (status) => {
    expect(effectiveOrderStatus({ status, expires: future }, now)).toBe(status);
  });
});

describe('orderExpiry', () => {
  it('is the pending lifetime without reused authorizations', () => {
    expect(orderExpiry(now, []).getTime()).toBe(now.getTime() + DEFAULT_ACME_LIFETIMES.pendingMs);
  });
  it('never outlives a reused authorization', () => {
    const soon = new Date(now.getTime() + 3600_000);
    expect(orderExpiry(now, [soon, new Date(now.getTime() + 9e9)])).toEqual(soon);
  });
});

describe('isReusableAuthorization', () => {
  it('reuses a valid authorization with a day to spare', () => {
    expect(
      isReusableAuthorization({ status: 'valid', expires: new Date(now.getTime() + 2 * 86400_000) }, now),
    ).toBe(true);
  });
  it('does not reuse one that expires within the margin', () => {
    expect(
      isReusableAuthorization({ status: 'valid', expires: new Date(now.getTime() + 3600_000) }, now),
    ).toBe(false);
  });
  it.each(AUTHORIZATION_STATUSES.filter((s) => s !== 'valid').map((s) => [s]))(
    'does not reuse a %s one',
    (status) => {
      expect(isReusableAuthorization({ status, expires: new Date(now.getTime() + 9e9) }, now)).toBe(false);
    },
  );
});

describe('approvalDeadline', () => {
  const inSeconds = (seconds: number) => new Date(now.getTime() + seconds * 1000);
  const EIGHT_HOURS_MS = 8 * 3600_000;

  it("is the order's expiry when CAA was not checked", () => {
    expect(approvalDeadline(inSeconds(6 * 86400), now, null)).toEqual(inSeconds(6 * 86400));
  });
  it("is the CAA check's end when the order outlives it", () => {
    expect(approvalDeadline(inSeconds(6 * 86400), now, EIGHT_HOURS_MS)).toEqual(inSeconds(8 * 3600));
  });
  it('-02 4.1 item 5: is the order expiry a persistUntil set earlier than the CAA check', () => {
    expect(approvalDeadline(inSeconds(3600), now, EIGHT_HOURS_MS)).toEqual(inSeconds(3600));
  });
  it('keeps the milliseconds, so it never outlives the order', () => {
    const expires = new Date(now.getTime() + 1999);
    expect(approvalDeadline(expires, now, null).getTime()).toBe(expires.getTime());
    expect(approvalDeadline(expires, now, EIGHT_HOURS_MS).getTime()).toBe(expires.getTime());
  });
  it('stays in the past for an order already expired (the approval then expires at once)', () => {
    expect(approvalDeadline(past, now, EIGHT_HOURS_MS)).toEqual(past);
  });
});
