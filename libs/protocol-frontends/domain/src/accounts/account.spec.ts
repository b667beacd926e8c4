import { problemOf } from '../testing/problem-of';
import {
  ACCOUNT_STATUSES,
  AccountEvent,
  AccountStatus,
  agreedToCurrentTerms,
  checkContacts,
  checkNewAccountPayload,
  nextAccountStatus,
  termsAgreedInUpdate,
  termsAgreementProblem,
  TermsAgreement,
  TermsRules,
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

describe('terms of service agreement (RFC 8555 7.3.3)', () => {
  const V1 = 'https://ca.example/terms/v1';
  const V2 = 'https://ca.example/terms/v2';
  const agreed = (url: string | null): TermsAgreement => ({
    terms_of_service_agreed: true,
    terms_of_service_url: url,
  });
  const notAgreed: TermsAgreement = { terms_of_service_agreed: false, terms_of_service_url: null };
  // Every account state against every rule set: [account, rules, agreed to current terms].
  const cases: [string, TermsAgreement, TermsRules, boolean][] = [
    ['no terms, agreed once', agreed(null), {}, true],
    ['no terms, never agreed', notAgreed, {}, false],
    ['no terms but re-agreement on', notAgreed, { reagreement: true }, false],
    ['terms, re-agreement off, agreed to older terms', agreed(V1), { termsOfService: V2 }, true],
    ['terms, re-agreement off, agreement without a URL', agreed(null), { termsOfService: V2 }, true],
    ['terms, re-agreement off, never agreed', notAgreed, { termsOfService: V2 }, false],
    ['re-agreement, agreed to these terms', agreed(V2), { termsOfService: V2, reagreement: true }, true],
    ['re-agreement, agreed to older terms', agreed(V1), { termsOfService: V2, reagreement: true }, false],
    ['re-agreement, agreement without a URL', agreed(null), { termsOfService: V2, reagreement: true }, false],
    ['re-agreement, never agreed', notAgreed, { termsOfService: V2, reagreement: true }, false],
  ];
  it.each(cases)('%s: agreed to the current terms = %s', (_name, account, rules, want) => {
    expect(agreedToCurrentTerms(account, rules)).toBe(want);
  });

  it.each(cases)('%s: refused only when re-agreement is asked and missing', (_name, account, rules, want) => {
    const refused = termsAgreementProblem(account, rules);
    const asked = Boolean(rules.termsOfService && rules.reagreement);
    expect(refused === null).toBe(!asked || want);
  });

  it('RFC 8555 7.3.3: the refusal is userActionRequired (403) linking the new terms, with an instance', () => {
    const refused = termsAgreementProblem(agreed(V1), { termsOfService: V2, reagreement: true })!;
    expect([refused.type, refused.status]).toEqual(['userActionRequired', 403]);
    expect(refused.extra.termsOfService).toBe(V2);
    expect(refused.toDocument().instance).toBe(V2);
    expect(refused.detail).toContain('termsOfServiceAgreed');
  });

  it('an account update agrees to the current terms only with termsOfServiceAgreed true', () => {
    expect(termsAgreedInUpdate({ termsOfServiceAgreed: true }, { termsOfService: V2 })).toBe(V2);
    expect(termsAgreedInUpdate({ termsOfServiceAgreed: false }, { termsOfService: V2 })).toBeNull();
    expect(termsAgreedInUpdate({ contact: [] }, { termsOfService: V2 })).toBeNull();
    expect(termsAgreedInUpdate({ termsOfServiceAgreed: true }, {})).toBeNull();
    expect(
      problemOf(() => termsAgreedInUpdate({ termsOfServiceAgreed: 'yes' }, { termsOfService: V2 })).type,
    ).toBe('malformed');
  });
});
