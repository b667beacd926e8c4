import { AcmeProblem } from '../problems/acme-problem';
import { checkDnsPersist, DnsPersistExpectation, parseDnsPersistRecord } from './dns-persist-01';

const now = new Date('2026-11-25T00:00:00Z');
const expected: DnsPersistExpectation = {
  issuerDomainNames: ['ca.certlane.test'],
  accountId: 'acct12345678',
  accountIdOfUri: (uri) => /\/acme\/account\/([A-Za-z0-9_-]+)$/.exec(uri)?.[1] ?? null,
  wildcard: false,
  now,
};
const ours = 'ca.certlane.test; accounturi=https://acme.example/acme/account/acct12345678';

const problemOf = (values: string[], overrides: Partial<DnsPersistExpectation> = {}): AcmeProblem | null => {
  try {
    checkDnsPersist(values, { ...expected, ...overrides });
    return null;
  } catch (error) {
    if (error instanceof AcmeProblem) return error;
    throw error;
  }
};

describe('parseDnsPersistRecord', () => {
  it('reads the issuer domain name and the parameters (names case-insensitive)', () => {
    expect(parseDnsPersistRecord('CA.Certlane.Test.; accountURI=https://x/a/1 ; policy=wildcard')).toEqual({
      issuerDomainName: 'ca.certlane.test',
      parameters: { accounturi: 'https://x/a/1', policy: 'wildcard' },
    });
  });
  it.each([['not a domain; accounturi=x'], ['ca.test; accounturi'], ['ca.test; a=1; a=2'], ['']])(
    'passes over %j',
    (value) => expect(parseDnsPersistRecord(value)).toBeNull(),
  );
});

describe('checkDnsPersist (draft-ietf-acme-dns-persist)', () => {
  it('accepts a record naming this CA and the account', () => {
    expect(problemOf([ours])).toBeNull();
  });
  it('accepts when one of several records fits (others for other CAs or accounts)', () => {
    expect(
      problemOf([
        'other-ca.example; accounturi=https://o/acme/account/x',
        'junk',
        `${ours}; policy=wildcard`,
      ]),
    ).toBeNull();
  });
  it('MUST: the issuer domain name must be one the challenge listed (incorrectResponse)', () => {
    expect(
      problemOf(['other-ca.example; accounturi=https://acme.example/acme/account/acct12345678'])?.type,
    ).toBe('incorrectResponse');
    expect(problemOf([])?.type).toBe('incorrectResponse');
  });
  it('MUST: accounturi must name the ordering account', () => {
    const problem = problemOf(['ca.certlane.test; accounturi=https://acme.example/acme/account/someoneelse']);
    expect(problem?.type).toBe('unauthorized');
    expect(problem?.detail).toContain('another account');
    expect(problemOf(['ca.certlane.test'])?.detail).toContain('no accounturi');
  });
  it('MUST NOT: a record past its persistUntil is not used', () => {
    const past = Math.floor(now.getTime() / 1000) - 1;
    const future = Math.floor(now.getTime() / 1000) + 3600;
    expect(problemOf([`${ours}; persistUntil=${past}`])?.detail).toContain('persistUntil has passed');
    expect(problemOf([`${ours}; persistUntil=${future}`])).toBeNull();
    expect(problemOf([`${ours}; persistUntil=soon`])?.type).toBe('unauthorized');
  });
  it('MUST: a wildcard needs policy=wildcard', () => {
    expect(problemOf([ours], { wildcard: true })?.detail).toContain('policy=wildcard');
    expect(problemOf([`${ours}; policy=Wildcard`], { wildcard: true })).toBeNull();
    expect(problemOf([`${ours}; policy=other`], { wildcard: true })?.type).toBe('unauthorized');
  });
});
