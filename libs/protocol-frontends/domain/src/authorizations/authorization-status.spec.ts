import {
  AUTHORIZATION_STATUSES,
  AuthorizationEvent,
  AuthorizationStatus,
  nextAuthorizationStatus,
} from './authorization-status';

const R = 'refused';
const outcome = (from: AuthorizationStatus, event: AuthorizationEvent): string => {
  const result = nextAuthorizationStatus(from, event);
  return result.ok ? result.to : R;
};
const table = (values: string[]): Record<AuthorizationStatus, string> =>
  Object.fromEntries(AUTHORIZATION_STATUSES.map((s, i) => [s, values[i]])) as Record<
    AuthorizationStatus,
    string
  >;

//                                        pending        valid          invalid deactivated expired revoked
const cases: [AuthorizationEvent, Record<AuthorizationStatus, string>][] = [
  [{ kind: 'challenge-valid' }, table(['valid', R, R, R, R, R])],
  [{ kind: 'challenge-invalid' }, table(['invalid', R, R, R, R, R])],
  [{ kind: 'deactivate' }, table(['deactivated', 'deactivated', R, R, R, R])],
  [{ kind: 'expire' }, table(['expired', 'expired', R, R, R, R])],
  [{ kind: 'revoke' }, table([R, 'revoked', R, R, R, R])],
];

describe('nextAuthorizationStatus', () => {
  for (const [event, expected] of cases) {
    describe(event.kind, () => {
      it.each(AUTHORIZATION_STATUSES.map((s) => [s, expected[s]]))('from %s -> %s', (from, want) => {
        expect(outcome(from as AuthorizationStatus, event)).toBe(want);
      });
    });
  }

  it('RFC 8555 7.5.2: deactivating an invalid authorization is refused as malformed', () => {
    const result = nextAuthorizationStatus('invalid', { kind: 'deactivate' });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.problem.toDocument().type).toBe('urn:ietf:params:acme:error:malformed');
  });
});
