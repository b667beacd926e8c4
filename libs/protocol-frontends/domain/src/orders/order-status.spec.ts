import {
  abandonedOrderProblem,
  accountDeactivatedProblem,
  finalizeAbandonedAfterMs,
  approvalEndedProblem,
  nextOrderStatus,
  orderEventFromApproval,
  ORDER_STATUSES,
  OrderEvent,
  orderEventFromAuthorizations,
  OrderStatus,
  statusesMovedBy,
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
  [{ kind: 'approval-pending' }, table([R, R, 'processing', R, R])],
  [{ kind: 'approval-rejected' }, table([R, R, 'invalid', R, R])],
  [{ kind: 'approval-expired' }, table([R, R, 'invalid', R, R])],
  [{ kind: 'expire' }, table(['invalid', 'invalid', R, R, R])],
  [{ kind: 'account-deactivated' }, table(['invalid', 'invalid', 'invalid', R, R])],
  [{ kind: 'abandoned' }, table([R, R, 'invalid', R, R])],
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

describe('orderEventFromApproval', () => {
  it.each([
    ['pending', 'approval-pending', 'processing'],
    ['issued', 'issued', 'valid'],
    ['rejected', 'approval-rejected', 'invalid'],
    ['expired', 'approval-expired', 'invalid'],
    ['failed', 'issuance-failed', 'invalid'],
  ] as const)('%s -> %s (a processing order becomes %s)', (state, kind, to) => {
    const event = orderEventFromApproval(state);
    expect(event.kind).toBe(kind);
    expect(nextOrderStatus('processing', event)).toEqual({ ok: true, to });
  });
});

describe('approvalEndedProblem', () => {
  it.each([
    ['rejected', 'not ours', 'unauthorized', 'rejected by an approver: not ours'],
    ['expired', null, 'unauthorized', 'not approved before its deadline'],
    [
      'failed',
      'issuance failed: CA retired',
      'serverInternal',
      'could not be issued: issuance failed: CA retired',
    ],
  ] as const)('%s (reason %s) -> %s', (state, reason, type, detail) => {
    const problem = approvalEndedProblem(state, reason);
    expect(problem.type).toBe(type);
    expect(problem.detail).toContain(detail);
  });

  it('leaves the reason out when the approver gave none', () => {
    expect(approvalEndedProblem('rejected', null).detail).toBe(
      'the certificate request was rejected by an approver',
    );
  });
});

describe('statusesMovedBy', () => {
  it.each(cases.map(([event, expected]) => [event.kind, event, expected] as const))(
    '%s: the statuses its table moves',
    (_kind, event, expected) => {
      expect(statusesMovedBy(event)).toEqual(ORDER_STATUSES.filter((s) => expected[s] !== R));
    },
  );
});

describe('accountDeactivatedProblem', () => {
  it('RFC 8555 7.3.6: an order its account deactivation ended is unauthorized, saying why', () => {
    expect(accountDeactivatedProblem().toDocument()).toMatchObject({
      type: 'urn:ietf:params:acme:error:unauthorized',
      detail: expect.stringContaining('deactivated'),
    });
  });
});

describe('abandoned orders', () => {
  it('waits at least ten minutes, and four bus timeouts when those are longer', () => {
    expect(finalizeAbandonedAfterMs(5_000)).toBe(600_000);
    expect(finalizeAbandonedAfterMs(300_000)).toBe(1_200_000);
  });

  it('tells the client to order again, with or without an approval', () => {
    for (const awaited of [true, false]) {
      const problem = abandonedOrderProblem(awaited).toDocument();
      expect(problem.type).toBe('urn:ietf:params:acme:error:serverInternal');
      expect(problem.detail).toContain('create a new order');
    }
    expect(abandonedOrderProblem(true).detail).toContain('not decided');
    expect(abandonedOrderProblem(false).detail).toContain('interrupted');
  });
});
