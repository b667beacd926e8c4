import { problemOf } from '../testing/problem-of';
import { CaaContext, CaaRecord, checkCaa, parseCaaIssueValue, relevantCaaRecords } from './caa';

const issue = (value: string, critical = false): CaaRecord => ({ critical, tag: 'issue', value });
const context = (over: Partial<CaaContext> = {}): CaaContext => ({
  wildcard: false,
  caaIdentities: ['ca.example'],
  accountId: 'acc1',
  accountIdOfUri: (uri) => /\/acme\/account\/([^/]+)$/.exec(uri)?.[1] ?? null,
  validationMethod: 'dns-01',
  ...over,
});

describe('CAA (RFC 8659, RFC 8657)', () => {
  it('RFC 8659 3: climbs to the closest ancestor with CAA records', async () => {
    const zone: Record<string, CaaRecord[]> = { 'example.com': [issue('ca.example')] };
    const asked: string[] = [];
    const found = await relevantCaaRecords('*.a.b.example.com', async (name) => {
      asked.push(name);
      return zone[name] ?? [];
    });
    expect(found?.name).toBe('example.com');
    expect(asked).toEqual(['a.b.example.com', 'b.example.com', 'example.com']);
    expect(await relevantCaaRecords('x.org', async () => [])).toBeNull();
  });

  it('RFC 8659 4.2: permits when an issue property names this CA; refuses one naming another', () => {
    expect(() => checkCaa([issue('other.example'), issue(' CA.example ; ')], context())).not.toThrow();
    expect(problemOf(() => checkCaa([issue('other.example')], context())).type).toBe('caa');
    expect(problemOf(() => checkCaa([issue(';')], context())).type).toBe('caa');
  });

  it('RFC 8659 4.2: without issue properties (iodef only) issuance is permitted', () => {
    expect(() =>
      checkCaa([{ critical: false, tag: 'iodef', value: 'mailto:x@example.com' }], context()),
    ).not.toThrow();
  });

  it('RFC 8659 4.1: an unknown critical property forbids issuance; an unknown non-critical one is ignored', () => {
    expect(
      problemOf(() => checkCaa([issue('ca.example'), { critical: true, tag: 'tbs', value: 'x' }], context()))
        .type,
    ).toBe('caa');
    expect(() =>
      checkCaa([issue('ca.example'), { critical: false, tag: 'tbs', value: 'x' }], context()),
    ).not.toThrow();
  });

  it('RFC 8659 4.3: issuewild governs wildcards when present, issue otherwise', () => {
    const records = [issue('ca.example'), { critical: false, tag: 'issuewild', value: ';' }];
    expect(() => checkCaa(records, context())).not.toThrow();
    expect(problemOf(() => checkCaa(records, context({ wildcard: true }))).type).toBe('caa');
    expect(() => checkCaa([issue('ca.example')], context({ wildcard: true }))).not.toThrow();
  });

  it('RFC 8657 3: accounturi must name the requesting account', () => {
    const records = [issue('ca.example; accounturi=https://ca.example/acme/account/acc1')];
    expect(() => checkCaa(records, context())).not.toThrow();
    expect(problemOf(() => checkCaa(records, context({ accountId: 'acc2' }))).type).toBe('caa');
  });

  it('RFC 8657 4: validationmethods must list the method that validated', () => {
    const records = [issue('ca.example; validationmethods=http-01,tls-alpn-01')];
    expect(problemOf(() => checkCaa(records, context())).type).toBe('caa');
    expect(() => checkCaa(records, context({ validationMethod: 'tls-alpn-01' }))).not.toThrow();
  });

  it('RFC 8657 3 and 4: a property with accounturi or validationmethods twice is unsatisfiable, whatever the order', () => {
    const mine = 'accounturi=https://ca.example/acme/account/acc1';
    const other = 'accounturi=https://ca.example/acme/account/acc2';
    for (const value of [`ca.example; ${mine}; ${other}`, `ca.example; ${other}; ${mine}`])
      expect(problemOf(() => checkCaa([issue(value)], context())).type).toBe('caa');
    const methods = 'ca.example; validationmethods=http-01; validationmethods=http-01';
    expect(problemOf(() => checkCaa([issue(methods)], context())).type).toBe('caa');
  });

  it('RFC 8659 4.2: parses issuer values (tags with hyphens, blanks around "="), refuses malformed parameters', () => {
    expect(parseCaaIssueValue('ca.example; a=b;c-1 = d; A=e')).toEqual({
      domain: 'ca.example',
      parameters: new Map([
        ['a', 'e'],
        ['c-1', 'd'],
      ]),
      repeated: new Set(['a']),
    });
    expect(parseCaaIssueValue('ca.example; novalue')).toBeNull();
    expect(parseCaaIssueValue('ca.example; -a=b')).toBeNull();
    expect(problemOf(() => checkCaa([issue('ca.example; bad param')], context())).type).toBe('caa');
  });
});
