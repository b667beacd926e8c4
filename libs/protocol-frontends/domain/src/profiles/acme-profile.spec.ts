import { problemOf } from '../testing/problem-of';
import { acmeProfileProblems, allowIpAfterChange, checkIdentifiersForProfile } from './acme-profile';

const profile = (rules: { allowIp?: boolean; allowedDomains?: string[]; deniedDomains?: string[] }) => ({
  id: 'web',
  allowIp: rules.allowIp ?? true,
  allowedDomains: rules.allowedDomains ?? [],
  deniedDomains: rules.deniedDomains ?? [],
});

describe('ACME profile identifier rules', () => {
  const dns = (value: string) => ({ type: 'dns' as const, value });
  const ip = (value: string) => ({ type: 'ip' as const, value });

  it('allows anything without lists', () => {
    expect(() =>
      checkIdentifiersForProfile([dns('a.example.com'), ip('192.0.2.1')], profile({})),
    ).not.toThrow();
  });

  it('allows a domain and the names under it, and nothing else, when allowedDomains is set', () => {
    const rules = profile({ allowedDomains: ['example.com'] });
    expect(() =>
      checkIdentifiersForProfile([dns('example.com'), dns('a.b.example.com'), dns('*.example.com')], rules),
    ).not.toThrow();
    const problem = problemOf(() =>
      checkIdentifiersForProfile([dns('example.org'), dns('badexample.com')], rules),
    );
    expect(problem.type).toBe('rejectedIdentifier');
    expect(problem.extra.subproblems?.map((s) => s.identifier?.value)).toEqual([
      'example.org',
      'badexample.com',
    ]);
  });

  it('refuses a denied domain even inside an allowed one, wildcards by their base name', () => {
    const rules = profile({ allowedDomains: ['example.com'], deniedDomains: ['internal.example.com'] });
    expect(problemOf(() => checkIdentifiersForProfile([dns('*.internal.example.com')], rules)).type).toBe(
      'rejectedIdentifier',
    );
    expect(
      problemOf(() => checkIdentifiersForProfile([dns('internal.example.com')], rules)).detail,
    ).toContain('internal.example.com');
  });

  it('refuses IP identifiers where the profile does not allow them', () => {
    expect(
      problemOf(() => checkIdentifiersForProfile([ip('192.0.2.1')], profile({ allowIp: false }))).type,
    ).toBe('rejectedIdentifier');
  });

  it('checks the domain lists', () => {
    expect(acmeProfileProblems({ allowedDomains: ['example.com', 'localhost'], deniedDomains: [] })).toEqual(
      [],
    );
    expect(
      acmeProfileProblems({ allowedDomains: ['Example.com'], deniedDomains: ['*.x.com', ''] }),
    ).toHaveLength(3);
  });

  it('checks the CAA identities as domain names (null: the server-wide ones)', () => {
    const lists = { allowedDomains: [], deniedDomains: [] };
    expect(acmeProfileProblems({ ...lists, caaIdentities: null })).toEqual([]);
    expect(acmeProfileProblems({ ...lists, caaIdentities: ['ca.example'] })).toEqual([]);
    expect(acmeProfileProblems({ ...lists, caaIdentities: ['not a name', 'ca.example'] })).toEqual([
      'caa_identities: "not a name" is not a lower-case DNS name',
    ]);
  });
});

describe('allowIpAfterChange', () => {
  const change = (over: Partial<Parameters<typeof allowIpAfterChange>[0]>) =>
    allowIpAfterChange({ requested: undefined, current: true, allowedBefore: [], allowedAfter: [], ...over });

  it('takes allow_ip as asked, whatever the domain lists', () => {
    expect(change({ requested: true, allowedAfter: ['example.com'] })).toBe(true);
    expect(change({ requested: false })).toBe(false);
    expect(change({ requested: true, current: false })).toBe(true);
  });

  it('turns IP addresses off when a change gives the profile its first allowed domains', () => {
    expect(change({ allowedAfter: ['example.com'] })).toBe(false);
  });

  it('keeps the stored value otherwise: no allowed domains, or domains already allowed before', () => {
    expect(change({})).toBe(true);
    expect(change({ current: false })).toBe(false);
    expect(change({ allowedBefore: ['example.com'], allowedAfter: ['example.com', 'example.net'] })).toBe(
      true,
    );
    expect(change({ allowedBefore: ['example.com'], allowedAfter: [] })).toBe(true);
  });
});
