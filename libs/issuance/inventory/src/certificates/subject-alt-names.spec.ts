import { subjectAltNamesFor } from './subject-alt-names';

describe('subjectAltNamesFor', () => {
  it('puts a host-name common name first and types each SAN by its form', () => {
    expect(
      subjectAltNamesFor('web.example.com', [
        'www.example.com',
        '10.0.0.1',
        '2001:db8::1',
        'ops@example.com',
        'spiffe://example.org/web',
      ]),
    ).toEqual([
      { type: 'dns', value: 'web.example.com' },
      { type: 'dns', value: 'www.example.com' },
      { type: 'ip', value: '10.0.0.1' },
      { type: 'ip', value: '2001:db8::1' },
      { type: 'email', value: 'ops@example.com' },
      { type: 'uri', value: 'spiffe://example.org/web' },
    ]);
  });

  it('leaves out a common name that is not a host name, and duplicates', () => {
    expect(subjectAltNamesFor('Payments Service', ['a.example.com', 'A.example.com'])).toEqual([
      { type: 'dns', value: 'a.example.com' },
    ]);
    expect(subjectAltNamesFor('a.example.com', ['a.example.com'])).toEqual([
      { type: 'dns', value: 'a.example.com' },
    ]);
  });
});
