import { problemOf } from '../testing/problem-of';
import {
  authorizationIdentifier,
  challengeTypesFor,
  checkCsrAgainstOrder,
  checkOrderIdentifiers,
} from './identifiers';

describe('checkOrderIdentifiers', () => {
  it('accepts dns and ip identifiers, deduplicated and sorted, IPv6 canonical', () => {
    expect(
      checkOrderIdentifiers([
        { type: 'dns', value: 'b.example.com' },
        { type: 'dns', value: '*.example.com' },
        { type: 'ip', value: '2001:DB8:0:0::1' },
        { type: 'dns', value: 'b.example.com' },
        { type: 'ip', value: '127.0.0.1' },
      ]),
    ).toEqual([
      { type: 'dns', value: '*.example.com' },
      { type: 'dns', value: 'b.example.com' },
      { type: 'ip', value: '127.0.0.1' },
      { type: 'ip', value: '2001:db8::1' },
    ]);
  });

  it.each([[undefined], [[]], ['x'], [{}]])('RFC 8555 7.4: identifiers %j are malformed', (raw) => {
    expect(problemOf(() => checkOrderIdentifiers(raw)).type).toBe('malformed');
  });

  it('RFC 4343: DNS names compare without case, so an upper-case name is ordered in lower case', () => {
    expect(
      checkOrderIdentifiers([
        { type: 'dns', value: 'WWW.Example.com' },
        { type: 'dns', value: 'www.example.COM' },
        { type: 'dns', value: '*.Example.com' },
      ]),
    ).toEqual([
      { type: 'dns', value: '*.example.com' },
      { type: 'dns', value: 'www.example.com' },
    ]);
  });

  it.each([
    'localhost',
    'a..example',
    '-a.example',
    'a.*.example',
    '*.com',
    'x.example.',
    '1.2.3.4',
    'a_b.example',
  ])('rejects the dns name %s', (value) => {
    expect(problemOf(() => checkOrderIdentifiers([{ type: 'dns', value }])).type).toBe('rejectedIdentifier');
  });

  it('accepts *.localhost-style test names', () => {
    expect(checkOrderIdentifiers([{ type: 'dns', value: 'acme-test.localhost' }])).toHaveLength(1);
  });

  it('rejects an ip identifier when the profile does not allow them, and a bad address as malformed', () => {
    expect(
      problemOf(() => checkOrderIdentifiers([{ type: 'ip', value: '10.0.0.1' }], { allowIp: false })).type,
    ).toBe('rejectedIdentifier');
    expect(problemOf(() => checkOrderIdentifiers([{ type: 'ip', value: '010.0.0.1' }])).type).toBe(
      'malformed',
    );
    // RFC 8738 3: an address, not an interface's: a zone index is malformed (it was a 500).
    expect(problemOf(() => checkOrderIdentifiers([{ type: 'ip', value: 'fe80::1%eth0' }])).type).toBe(
      'malformed',
    );
  });

  it('CA/B BR 7.1.2.7.12: reserved LDH labels and A-labels that are not valid IDNA are rejected; valid A-labels pass', () => {
    for (const value of ['ab--cd.example.com', 'xn--zz.example.com', 'xn--99999999999.example.com'])
      expect(problemOf(() => checkOrderIdentifiers([{ type: 'dns', value }])).type).toBe(
        'rejectedIdentifier',
      );
    expect(checkOrderIdentifiers([{ type: 'dns', value: 'xn--bcher-kva.example' }])).toEqual([
      { type: 'dns', value: 'xn--bcher-kva.example' },
    ]);
  });

  it('answers an unknown identifier type with unsupportedIdentifier', () => {
    expect(problemOf(() => checkOrderIdentifiers([{ type: 'email', value: 'a@b.c' }])).type).toBe(
      'unsupportedIdentifier',
    );
  });

  it('RFC 8555 6.7.1: several refused identifiers are one compound problem with a subproblem each', () => {
    const problem = problemOf(() =>
      checkOrderIdentifiers([
        { type: 'dns', value: 'a_b.example' },
        { type: 'email', value: 'x' },
      ]),
    );
    expect(problem.type).toBe('compound');
    // Each names its identifier, so a client can tell which to drop.
    expect(problem.toDocument().subproblems).toEqual([
      expect.objectContaining({ identifier: { type: 'dns', value: 'a_b.example' } }),
      expect.objectContaining({
        type: 'urn:ietf:params:acme:error:unsupportedIdentifier',
        identifier: { type: 'email', value: 'x' },
      }),
    ]);
  });
});

describe('challengeTypesFor', () => {
  const all = ['http-01', 'dns-01', 'tls-alpn-01'] as const;
  it('RFC 8555 7.1.3: a wildcard is only offered dns-01', () => {
    expect(challengeTypesFor({ type: 'dns', value: '*.example.com' }, all)).toEqual(['dns-01']);
  });
  it('RFC 8738 7: an IP address is never offered dns-01', () => {
    expect(challengeTypesFor({ type: 'ip', value: '127.0.0.1' }, all)).toEqual(['http-01', 'tls-alpn-01']);
  });
  it('draft-ietf-acme-dns-persist: a wildcard is offered dns-persist-01 when enabled, an IP never', () => {
    const withPersist = [...all, 'dns-persist-01'] as const;
    expect(challengeTypesFor({ type: 'dns', value: '*.example.com' }, withPersist)).toEqual([
      'dns-01',
      'dns-persist-01',
    ]);
    expect(challengeTypesFor({ type: 'ip', value: '::1' }, withPersist)).not.toContain('dns-persist-01');
  });
  it('offers only the enabled types', () => {
    expect(challengeTypesFor({ type: 'dns', value: 'a.example' }, ['http-01'])).toEqual(['http-01']);
  });
});

describe('authorizationIdentifier', () => {
  it('strips the wildcard and marks the authorization', () => {
    expect(authorizationIdentifier({ type: 'dns', value: '*.example.com' })).toEqual({
      identifier: { type: 'dns', value: 'example.com' },
      wildcard: true,
    });
    expect(authorizationIdentifier({ type: 'ip', value: '::1' }).wildcard).toBe(false);
  });
});

describe('checkCsrAgainstOrder', () => {
  const order = [
    { type: 'dns' as const, value: 'a.example' },
    { type: 'ip' as const, value: '2001:db8::1' },
  ];
  const sans = (dns: string[], ip: string[] = []) => [
    ...dns.map((value) => ({ type: 'dns', value })),
    ...ip.map((value) => ({ type: 'ip', value })),
  ];
  it('accepts a CSR naming exactly the identifiers, and certifies them with its common name', () => {
    expect(
      checkCsrAgainstOrder(
        { commonName: 'A.example', subjectAltNames: sans(['A.example'], ['2001:DB8::1']) },
        order,
      ),
    ).toEqual({ subjectAltNames: order, commonName: 'a.example' });
  });
  it('certifies an identifier the CSR names only as its common name as a SAN too', () => {
    const certified = checkCsrAgainstOrder({ commonName: 'a.example', subjectAltNames: [] }, [
      { type: 'dns', value: 'a.example' },
    ]);
    expect(certified.subjectAltNames).toEqual([{ type: 'dns', value: 'a.example' }]);
  });
  it('without a common name, certifies the first DNS identifier that fits one (64 characters)', () => {
    const long = `${'x'.repeat(60)}.example`;
    const identifiers = [
      { type: 'ip' as const, value: '192.0.2.1' },
      { type: 'dns' as const, value: long },
      { type: 'dns' as const, value: 'b.example' },
    ];
    expect(
      checkCsrAgainstOrder({ subjectAltNames: sans([long, 'b.example'], ['192.0.2.1']) }, identifiers)
        .commonName,
    ).toBe('b.example');
    expect(
      checkCsrAgainstOrder({ subjectAltNames: sans([], ['192.0.2.1']) }, [identifiers[0]]).commonName,
    ).toBe('');
  });
  it('RFC 8555 7.4: a CSR lacking an identifier of the order is badCSR', () => {
    expect(problemOf(() => checkCsrAgainstOrder({ subjectAltNames: sans(['a.example']) }, order)).type).toBe(
      'badCSR',
    );
  });
  it('RFC 8555 7.4: a CSR naming more than the order is badCSR', () => {
    const problem = problemOf(() =>
      checkCsrAgainstOrder({ subjectAltNames: sans(['a.example', 'b.example'], ['2001:db8::1']) }, order),
    );
    expect(problem.type).toBe('badCSR');
    expect(problem.detail).toContain('dns:b.example');
  });
  it('RFC 8555 7.4: a CSR requesting another kind of name (email, URI) is badCSR', () => {
    const problem = problemOf(() =>
      checkCsrAgainstOrder(
        {
          subjectAltNames: [
            ...sans(['a.example'], ['2001:db8::1']),
            { type: 'email', value: 'ceo@bank.example' },
            { type: 'uri', value: 'https://evil.example/' },
          ],
        },
        order,
      ),
    );
    expect(problem.type).toBe('badCSR');
    expect(problem.detail).toContain('email:ceo@bank.example');
  });
  it('RFC 8555 7.4: a common name outside the order is badCSR', () => {
    expect(
      problemOf(() =>
        checkCsrAgainstOrder(
          { commonName: 'c.example', subjectAltNames: sans(['a.example'], ['2001:db8::1']) },
          order,
        ),
      ).type,
    ).toBe('badCSR');
  });
});
