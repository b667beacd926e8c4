import { problemOf } from '../testing/problem-of';
import {
  ACCOUNT_STATUSES,
  AccountEvent,
  AccountStatus,
  checkContacts,
  checkNewAccountPayload,
  nextAccountStatus,
} from './account';

describe('nextAccountStatus', () => {
  const R = 'refused';
  const expected: Record<AccountEvent['kind'], Record<AccountStatus, string>> = {
    deactivate: { valid: 'deactivated', deactivated: R, revoked: R },
    revoke: { valid: 'revoked', deactivated: R, revoked: R },
  };
  for (const kind of ['deactivate', 'revoke'] as const) {
    it.each(ACCOUNT_STATUSES.map((s) => [s, expected[kind][s]]))(`${kind} from %s -> %s`, (from, want) => {
      const result = nextAccountStatus(from as AccountStatus, { kind });
      expect(result.ok ? result.to : R).toBe(want);
    });
  }
  it('RFC 8555 7.3.6: a deactivated account is refused as unauthorized', () => {
    const result = nextAccountStatus('deactivated', { kind: 'deactivate' });
    expect(!result.ok && result.problem.type).toBe('unauthorized');
  });
});

describe('checkContacts', () => {
  it('accepts mailto contacts and none', () => {
    expect(checkContacts(['mailto:ops@example.com'])).toEqual(['mailto:ops@example.com']);
    expect(checkContacts(undefined)).toEqual([]);
  });
  it('RFC 3986 3.1: takes the scheme in any case, and keeps it as mailto:', () => {
    expect(checkContacts(['MAILTO:ops@example.com', 'Mailto:b@example.com'])).toEqual([
      'mailto:ops@example.com',
      'mailto:b@example.com',
    ]);
  });
  it('answers another scheme with unsupportedContact', () => {
    expect(problemOf(() => checkContacts(['tel:+123'])).type).toBe('unsupportedContact');
  });
  it.each(['mailto:a@b.c,d@e.f', 'mailto:a@b.c?subject=x', 'mailto:nobody'])(
    'RFC 8555 7.3: %s is an invalidContact',
    (contact) => {
      expect(problemOf(() => checkContacts([contact])).type).toBe('invalidContact');
    },
  );
  it('answers a non-array as malformed', () => {
    expect(problemOf(() => checkContacts('mailto:a@b.c')).type).toBe('malformed');
  });
});

describe('checkNewAccountPayload', () => {
  const TOS = 'https://ca.example/terms';

  it('reads contact, ToS agreement and onlyReturnExisting', () => {
    expect(
      checkNewAccountPayload(
        { contact: ['mailto:a@b.co'], termsOfServiceAgreed: true },
        { termsOfService: TOS },
      ),
    ).toEqual({ contact: ['mailto:a@b.co'], termsOfServiceAgreed: true, onlyReturnExisting: false });
    expect(
      checkNewAccountPayload({ onlyReturnExisting: true }, { termsOfService: TOS }).onlyReturnExisting,
    ).toBe(true);
  });
  it('RFC 8555 7.3.3: without agreeing to required terms the answer is userActionRequired', () => {
    const refused = problemOf(() => checkNewAccountPayload({}, { termsOfService: TOS }));
    expect(refused.type).toBe('userActionRequired');
    expect(refused.extra.termsOfService).toBe(TOS);
    expect(
      problemOf(() => checkNewAccountPayload({ termsOfServiceAgreed: false }, { termsOfService: TOS })).type,
    ).toBe('userActionRequired');
    expect(checkNewAccountPayload({}, {}).termsOfServiceAgreed).toBe(false);
  });
  it('answers non-boolean flags as malformed', () => {
    expect(problemOf(() => checkNewAccountPayload({ onlyReturnExisting: 'yes' }, {})).type).toBe('malformed');
  });
});
