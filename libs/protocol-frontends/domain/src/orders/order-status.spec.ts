import {
  nextOrderStatus,
  ORDER_STATUSES,
  OrderEvent,
  orderEventFromAuthorizations,
  OrderStatus,
} from './order-status';

const R = 'refused';
const outcome = (from: OrderStatus, event: OrderEvent): string => {
  const result = nextOrderStatus(from, event);
  return result.ok ? result.to : R;
};
const table = (values: string[]): Record<OrderStatus, string> =>
  Object.fromEntries(ORDER_STATUSES.map((s, i) => [s, values[i]])) as Record<OrderStatus, string>;

//                                              pending    ready      processing  valid  invalid
const cases: [OrderEvent, Record<OrderStatus, string>][] = [
  [{ kind: 'authorizations-valid' }, table(['ready', R, R, R, R])],
  [{ kind: 'authorization-failed' }, table(['invalid', 'invalid', R, R, R])],
  [{ kind: 'finalize' }, table([R, 'processing', R, R, R])],
  [{ kind: 'issued' }, table([R, R, 'valid', R, R])],
  [{ kind: 'issuance-failed' }, table([R, R, 'invalid', R, R])],
  [{ kind: 'expire' }, table(['invalid', 'invalid', R, R, R])],
];

describe('nextOrderStatus', () => {
  for (const [event, expected] of cases) {
    describe(event.kind, () => {
      it.each(ORDER_STATUSES.map((s) => [s, expected[s]]))('from %s -> %s', (from, want) => {
        expect(outcome(from as OrderStatus, event)).toBe(want);
      });
    });
  }

  it.each(['pending', 'processing', 'valid', 'invalid'] as const)(
    'RFC 8555 7.4: finalizing a %s order is answered with orderNotReady',
    (from) => {
      const result = nextOrderStatus(from, { kind: 'finalize' });
      expect(result.ok).toBe(false);
      if (!result.ok)
        expect(result.problem.toDocument().type).toBe('urn:ietf:params:acme:error:orderNotReady');
    },
  );

  it('refuses an internal trigger as malformed, naming the status', () => {
    const result = nextOrderStatus('valid', { kind: 'issued' });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.problem.type).toBe('malformed');
      expect(result.problem.detail).toContain('valid');
    }
  });
});

describe('orderEventFromAuthorizations', () => {
  it.each([
    [['valid', 'valid'], 'authorizations-valid'],
    [['valid', 'pending'], null],
    [['pending'], null],
    [['valid', 'invalid'], 'authorization-failed'],
    [['pending', 'deactivated'], 'authorization-failed'],
    [['expired'], 'authorization-failed'],
    [['revoked', 'valid'], 'authorization-failed'],
    [[], null],
  ])('%j -> %s', (statuses, want) => {
    expect(orderEventFromAuthorizations(statuses)?.kind ?? null).toBe(want);
  });
});
