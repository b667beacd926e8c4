import { AcmeProblem } from '../problems/acme-problem';
import {
  checkDnsPersist,
  DnsPersistExpectation,
  DnsPersistLookup,
  dnsPersistDomains,
  hashedAccountUri,
  parseDnsPersistRecord,
} from './dns-persist-01';

const now = new Date('2026-11-25T00:00:00Z');
const expected: DnsPersistExpectation = {
  issuerDomainNames: ['ca.certlane.test'],
  accountId: 'acct12345678',
  accountThumbprints: ['NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs'],
  accountUrlsOn: (origin) => [
    `${origin}/acme/account/acct12345678`,
    `${origin}/acme/profile/p/account/acct12345678`,
  ],
  accountIdOfUri: (uri) => /\/acme\/account\/([A-Za-z0-9_-]+)$/.exec(uri)?.[1] ?? null,
  domain: 'example.com',
  wildcard: false,
  now,
};
const ours = 'ca.certlane.test; accounturi=https://acme.example/acme/account/acct12345678';
const wildcardPolicy = `${ours}; policy=wildcard`;

const judge = (
  lookups: DnsPersistLookup[],
  overrides: Partial<DnsPersistExpectation> = {},
): AcmeProblem | null => {
  try {
    checkDnsPersist(lookups, { ...expected, ...overrides });
    return null;
  } catch (error) {
    if (error instanceof AcmeProblem) return error;
    throw error;
  }
};
/** The records of `example.com` alone. */
const problemOf = (values: string[], overrides: Partial<DnsPersistExpectation> = {}) =>
  judge([{ domain: 'example.com', values }], overrides);

describe('parseDnsPersistRecord', () => {
  it('reads the issuer domain name and the parameters (names case-insensitive)', () => {
    expect(parseDnsPersistRecord('CA.Certlane.Test.; accountURI=https://x/a/1 ; policy=wildcard')).toEqual({
      issuerDomainName: 'ca.certlane.test',
      parameters: { accounturi: 'https://x/a/1', policy: 'wildcard' },
    });
  });
  it.each([['not a domain; accounturi=x'], ['ca.test; accounturi'], ['ca.test; policy=a; policy=b'], ['']])(
    'passes over %j',
    (value) => expect(parseDnsPersistRecord(value)).toBeNull(),
  );
  it('4.1: ignores parameters with an unrecognized tag (even repeated), and reads the rest', () => {
    expect(
      parseDnsPersistRecord('ca.test; accounturi=https://x/a/1; x-ext=1; x-ext=2; policy = wildcard'),
    ).toEqual({
      issuerDomainName: 'ca.test',
      parameters: { accounturi: 'https://x/a/1', 'x-ext': '2', policy: 'wildcard' },
    });
  });
});

describe('dnsPersistDomains', () => {
  it('6.1: the FQDN itself, then each proper suffix made of whole labels, closest first', () => {
    expect(dnsPersistDomains('a.b.example.com')).toEqual(['a.b.example.com', 'b.example.com', 'example.com']);
  });
  it('normalizes case and a trailing dot', () => {
    expect(dnsPersistDomains('WWW.Example.COM.')).toEqual(['www.example.com', 'example.com']);
  });
  it('stops at the registrable domain: a top-level domain is never a validated FQDN', () => {
    expect(dnsPersistDomains('example.com')).toEqual(['example.com']);
    expect(dnsPersistDomains('a.b.example.com')).not.toContain('com');
  });
  it('never walks to a multi-label public suffix of the Public Suffix List', () => {
    expect(dnsPersistDomains('a.shop.example.co.uk')).toEqual([
      'a.shop.example.co.uk',
      'shop.example.co.uk',
      'example.co.uk',
    ]);
  });
  it('never walks to a private public suffix (one user of a hosting domain for another)', () => {
    expect(dnsPersistDomains('www.alice.github.io')).toEqual(['www.alice.github.io', 'alice.github.io']);
  });
  it('a name that is itself a public suffix is looked up only under its own name', () => {
    expect(dnsPersistDomains('co.uk')).toEqual(['co.uk']);
  });
  it('a one-label name is looked up only under its own name', () => {
    expect(dnsPersistDomains('localhost')).toEqual(['localhost']);
  });
});

describe('checkDnsPersist (draft-ietf-acme-dns-persist-02)', () => {
  describe('the record at the FQDN itself', () => {
    it('accepts a record naming this CA and the account', () => {
      expect(problemOf([ours])).toBeNull();
    });
    it('accepts when one of several records fits (others for other CAs or accounts)', () => {
      expect(
        problemOf(['other-ca.example; accounturi=https://o/acme/account/x', 'junk', wildcardPolicy]),
      ).toBeNull();
    });
    it('4.3.2: a record for another CA is ignored even when it comes first', () => {
      expect(problemOf(['ca2.example; accounturi=https://o/acme/account/acct12345678', ours])).toBeNull();
    });
    it('4.1 item 2: the issuer domain name must be one the challenge listed (incorrectResponse)', () => {
      const problem = problemOf([
        'other-ca.example; accounturi=https://acme.example/acme/account/acct12345678',
      ]);
      expect(problem?.type).toBe('incorrectResponse');
      expect(problem?.detail).toContain('_validation-persist.example.com');
      expect(problemOf([])?.type).toBe('incorrectResponse');
    });
    it('4.1 item 3: accounturi must name the ordering account (unauthorized)', () => {
      const problem = problemOf([
        'ca.certlane.test; accounturi=https://acme.example/acme/account/someoneelse',
      ]);
      expect(problem?.type).toBe('unauthorized');
      expect(problem?.detail).toBe(
        "the _validation-persist.example.com record's accounturi names another account",
      );
      // -02 9.3.1: a record without the mandatory accounturi is malformed.
      expect(problemOf(['ca.certlane.test'])).toMatchObject({
        type: 'malformed',
        detail: expect.stringContaining('no accounturi'),
      });
    });
    it('4.1 item 5: a record past its persistUntil is not used', () => {
      const past = Math.floor(now.getTime() / 1000) - 1;
      const future = Math.floor(now.getTime() / 1000) + 3600;
      expect(problemOf([`${ours}; persistUntil=${past}`])?.detail).toContain('persistUntil has passed');
      expect(problemOf([`${ours}; persistUntil=${future}`])).toBeNull();
      // A persistUntil that is not a base-10 integer makes the record malformed (-01 and -02 4.1 item 5).
      expect(problemOf([`${ours}; persistUntil=soon`])?.type).toBe('malformed');
    });
    it('4.1 item 5: answers the persistUntil of the record that validated (the authorization ends by then)', () => {
      const future = Math.floor(now.getTime() / 1000) + 3600;
      const lookups = [{ domain: 'example.com', values: [`${ours}; persistUntil=${future}`] }];
      expect(checkDnsPersist(lookups, expected)).toEqual({ validUntil: new Date(future * 1000) });
      expect(checkDnsPersist([{ domain: 'example.com', values: [ours] }], expected)).toEqual({});
    });
    it('5.1: a base-level wildcard needs policy=wildcard (value case-insensitive, 4.1 item 4)', () => {
      expect(problemOf([ours], { wildcard: true })?.detail).toContain(
        'does not allow wildcards (policy=wildcard)',
      );
      expect(problemOf([`${ours}; policy=Wildcard`], { wildcard: true })).toBeNull();
      expect(problemOf([`${ours}; policy=other`], { wildcard: true })?.type).toBe('unauthorized');
    });
    it('5.1 item 1: policy=wildcard also covers the FQDN itself', () => {
      expect(problemOf([wildcardPolicy])).toBeNull();
    });
  });

  describe('a record at an ancestor (subdomain validation, sections 5 and 6)', () => {
    const sub = { domain: 'a.b.example.com' };
    it('6.2: a record with policy=wildcard at the parent or a further ancestor validates the subdomain', () => {
      expect(judge([{ domain: 'b.example.com', values: [wildcardPolicy] }], sub)).toBeNull();
      expect(
        judge(
          [
            { domain: 'a.b.example.com', values: [] },
            { domain: 'b.example.com', values: [] },
            { domain: 'example.com', values: [wildcardPolicy] },
          ],
          sub,
        ),
      ).toBeNull();
    });
    it('6.2: without policy=wildcard, an ancestor record MUST NOT validate a subdomain (unauthorized)', () => {
      const problem = judge([{ domain: 'example.com', values: [ours] }], sub);
      expect(problem?.type).toBe('unauthorized');
      expect(problem?.detail).toBe(
        'the _validation-persist.example.com record does not cover its subdomains (policy=wildcard)',
      );
    });
    it('4.1 item 4: a policy other than wildcard is as if absent: it does not reach subdomains', () => {
      expect(judge([{ domain: 'example.com', values: [`${ours}; policy=subdomains`] }], sub)?.type).toBe(
        'unauthorized',
      );
    });
    it('5.1 item 2 / 6.1: a wildcard under the ancestor (*.a.b.example.com) validates with policy=wildcard', () => {
      expect(
        judge([{ domain: 'example.com', values: [wildcardPolicy] }], { ...sub, wildcard: true }),
      ).toBeNull();
      expect(
        judge([{ domain: 'example.com', values: [ours] }], { ...sub, wildcard: true })?.detail,
      ).toContain('does not cover its subdomains');
    });
    it('4.1 item 3: an ancestor record naming another account does not validate', () => {
      const other =
        'ca.certlane.test; accounturi=https://acme.example/acme/account/someoneelse; policy=wildcard';
      expect(judge([{ domain: 'example.com', values: [other] }], sub)?.detail).toContain('another account');
    });
    it('4.1 item 5: an ancestor record past its persistUntil does not validate', () => {
      const past = Math.floor(now.getTime() / 1000) - 1;
      expect(
        judge([{ domain: 'example.com', values: [`${wildcardPolicy}; persistUntil=${past}`] }], sub)?.detail,
      ).toContain('persistUntil has passed');
    });
    it('7.4: an ancestor record for another CA is ignored (incorrectResponse naming every name looked at)', () => {
      const problem = judge(
        [
          {
            domain: 'example.com',
            values: ['ca2.example; accounturi=https://x/acme/account/acct12345678; policy=wildcard'],
          },
        ],
        sub,
      );
      expect(problem?.type).toBe('incorrectResponse');
      expect(problem?.detail).toBe(
        'no record at _validation-persist.a.b.example.com, _validation-persist.b.example.com, _validation-persist.example.com names ca.certlane.test',
      );
    });
  });

  describe('stop conditions', () => {
    it('a record at a top-level domain (one label, a public suffix) is never used, even with policy=wildcard', () => {
      expect(judge([{ domain: 'com', values: [wildcardPolicy] }])?.type).toBe('incorrectResponse');
      expect(judge([{ domain: 'com', values: [wildcardPolicy] }], { domain: 'a.b.example.com' })?.type).toBe(
        'incorrectResponse',
      );
    });
    it('6.1: a record at a name that is not a proper suffix of whole labels is never used', () => {
      expect(judge([{ domain: 'ample.com', values: [wildcardPolicy] }])?.type).toBe('incorrectResponse');
      expect(judge([{ domain: 'www.example.com', values: [wildcardPolicy] }])?.type).toBe(
        'incorrectResponse',
      );
      expect(judge([{ domain: 'example.net', values: [wildcardPolicy] }])?.type).toBe('incorrectResponse');
    });
    it('lookups are matched by name regardless of case and a trailing dot', () => {
      expect(judge([{ domain: 'Example.COM.', values: [ours] }])).toBeNull();
    });
  });

  describe('precedence between names', () => {
    const sub = { domain: 'a.b.example.com' };
    const past = Math.floor(now.getTime() / 1000) - 1;
    it('4.3.2: any record that satisfies every requirement validates: a refused closer record does not hide it', () => {
      expect(
        judge(
          [
            { domain: 'a.b.example.com', values: [`${ours}; persistUntil=${past}`] },
            { domain: 'example.com', values: [wildcardPolicy] },
          ],
          sub,
        ),
      ).toBeNull();
    });
    it('the refusal reported is that of the closest record of this CA', () => {
      const problem = judge(
        [
          { domain: 'example.com', values: [`${wildcardPolicy}; persistUntil=${past}`] },
          { domain: 'b.example.com', values: [ours] },
        ],
        sub,
      );
      expect(problem?.detail).toBe(
        'the _validation-persist.b.example.com record does not cover its subdomains (policy=wildcard)',
      );
    });
    it('a closer exact record validates whatever an ancestor says', () => {
      expect(
        judge(
          [
            { domain: 'a.b.example.com', values: [ours] },
            { domain: 'example.com', values: ['ca.certlane.test; accounturi=https://x/acme/account/other'] },
          ],
          sub,
        ),
      ).toBeNull();
    });
  });

  describe('hashed account URIs (draft -02 4.1 item 3, 4.2)', () => {
    const prefix = 'https://acme.example/acme/account-hash/';
    const thumbprint = expected.accountThumbprints[0];
    const record = (uri: string) => `ca.certlane.test; accounturi=${uri}`;

    it("computes the draft's test vector (10.2)", () => {
      expect(
        hashedAccountUri(
          'https://ca.example/account-hash/',
          'example.com',
          'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs',
          'https://ca.example/acct/123',
        ),
      ).toBe('https://ca.example/account-hash/sha-256/5SQm7n6tPh2-PlLbCKGnViTXX5z19SCN4cPGQHSk-kw');
      expect(
        hashedAccountUri(
          'https://ca.example/account-hash/',
          '*',
          'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs',
          'https://ca.example/acct/123',
        ),
      ).toBe('https://ca.example/account-hash/sha-256/NpDnSwUthQK8zCgFdefYxAdAVPnygMLbs9US6oO-5ug');
    });

    it("validates a hash over the record's own FQDN or over * (the opt-out a CA MUST accept), for either account URL form", () => {
      const plain = 'https://acme.example/acme/account/acct12345678';
      const viaProfile = 'https://acme.example/acme/profile/p/account/acct12345678';
      expect(problemOf([record(hashedAccountUri(prefix, 'example.com', thumbprint, plain))])).toBeNull();
      expect(problemOf([record(hashedAccountUri(prefix, '*', thumbprint, viaProfile))])).toBeNull();
    });

    it('4.2: recomputed over each key the account has held (a record made before a key change still validates)', () => {
      const url = 'https://acme.example/acme/account/acct12345678';
      const older = 'older-thumbprint-older-thumbprint-older-thu';
      const uri = hashedAccountUri(prefix, 'example.com', older, url);
      expect(problemOf([record(uri)])?.type).toBe('unauthorized');
      expect(problemOf([record(uri)], { accountThumbprints: [thumbprint, older] })).toBeNull();
    });

    it('MUST reject a hash bound to another FQDN, another account URL or another key (unauthorized)', () => {
      const url = 'https://acme.example/acme/account/acct12345678';
      for (const uri of [
        hashedAccountUri(prefix, 'other.example', thumbprint, url),
        hashedAccountUri(prefix, 'example.com', thumbprint, 'https://acme.example/acme/account/someoneelse'),
        hashedAccountUri(prefix, 'example.com', 'another-key-another-key-another-key-another', url),
      ]) {
        const problem = problemOf([record(uri)]);
        expect(problem?.type).toBe('unauthorized');
        expect(problem?.detail).toContain('names another account');
      }
    });

    it('compares by Simple String Comparison: a hash in another case does not match', () => {
      const uri = hashedAccountUri(
        prefix,
        'example.com',
        thumbprint,
        'https://acme.example/acme/account/acct12345678',
      );
      const [head, hash] = [uri.slice(0, uri.lastIndexOf('/') + 1), uri.slice(uri.lastIndexOf('/') + 1)];
      const flipped = hash.replace(/[a-z]/, (c) => c.toUpperCase());
      expect(flipped).not.toBe(hash);
      expect(problemOf([record(head + flipped)])?.type).toBe('unauthorized');
    });

    it('MUST reject as malformed a hash algorithm this CA does not accept', () => {
      const problem = problemOf([record(`${prefix}sha-512/AAAA`)]);
      expect(problem?.type).toBe('malformed');
      expect(problem?.detail).toContain('sha-512');
    });

    it('9.3.1: a sha-256 value that is not 43 base64url characters is malformed', () => {
      expect(problemOf([record(`${prefix}sha-256/AAAA`)])?.type).toBe('malformed');
      expect(problemOf([record(`${prefix}sha-256/${'A'.repeat(44)}`)])?.type).toBe('malformed');
    });

    it('4.2 rule 1: no record of a deactivated account validates, hashed or not', () => {
      const uri = hashedAccountUri(
        prefix,
        'example.com',
        thumbprint,
        'https://acme.example/acme/account/acct12345678',
      );
      expect(problemOf([record(uri)], { accountDeactivated: true })?.detail).toContain('deactivated');
      expect(problemOf([ours], { accountDeactivated: true })?.type).toBe('unauthorized');
    });
  });

  describe('lookup failures', () => {
    const sub = { domain: 'a.b.example.com' };
    it('a failed lookup makes the attempt a dns problem (retried) when no record validates', () => {
      const problem = judge(
        [
          { domain: 'a.b.example.com', values: [] },
          { domain: 'b.example.com', failure: 'ESERVFAIL' },
          { domain: 'example.com', values: [ours] },
        ],
        sub,
      );
      expect(problem?.type).toBe('dns');
      expect(problem?.detail).toBe('looking up TXT _validation-persist.b.example.com failed: ESERVFAIL');
    });
    it('a failed lookup does not matter when another name validates', () => {
      expect(
        judge(
          [
            { domain: 'a.b.example.com', failure: 'ETIMEOUT' },
            { domain: 'example.com', values: [wildcardPolicy] },
          ],
          sub,
        ),
      ).toBeNull();
    });
    it('a failed lookup of a name out of scope is ignored', () => {
      expect(judge([{ domain: 'com', failure: 'ESERVFAIL' }])?.type).toBe('incorrectResponse');
    });
  });
});
