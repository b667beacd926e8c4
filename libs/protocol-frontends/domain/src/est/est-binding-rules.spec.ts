import { channelBindingProblem, HolderNames, reenrollProblems } from './est-binding-rules';

describe('simplereenroll names (RFC 7030 4.2.2)', () => {
  const current: HolderNames = { subject: 'CN=device1', sans: ['dns:device1.example', 'ip:192.0.2.1'] };
  it.each<[string, HolderNames, number]>([
    ['the same subject and SANs', { ...current }, 0],
    [
      'the same SANs in another order',
      { subject: 'CN=device1', sans: ['ip:192.0.2.1', 'dns:device1.example'] },
      0,
    ],
    ['RFC 7030 4.2.2: another subject', { ...current, subject: 'CN=device2' }, 1],
    ['RFC 7030 4.2.2: a SAN added', { ...current, sans: [...current.sans, 'dns:other.example'] }, 1],
    ['RFC 7030 4.2.2: a SAN dropped', { ...current, sans: ['dns:device1.example'] }, 1],
    ['RFC 7030 4.2.2: another subject and no SAN', { subject: 'CN=x', sans: [] }, 2],
  ])('%s', (_, request, problems) => {
    expect(reenrollProblems(request, current)).toHaveLength(problems);
  });
  it('says what differs', () => {
    expect(reenrollProblems({ subject: 'CN=a', sans: [] }, { subject: 'CN=b', sans: ['dns:b'] })).toEqual([
      'the CSR subject "CN=a" is not the subject of the certificate being renewed ("CN=b")',
      'the CSR SubjectAltName (none) is not that of the certificate being renewed (dns:b)',
    ]);
  });
});

describe('channel binding (RFC 7030 3.5, RFC 9266)', () => {
  const exporter = Buffer.alloc(32, 7).toString('base64');
  it.each<[string, string | undefined, string | undefined, string | null]>([
    ['the binding of this connection', exporter, exporter, null],
    ['the binding with a trailing newline', `${exporter}\n`, exporter, null],
    [
      'RFC 7030 3.5: no challengePassword',
      undefined,
      exporter,
      'the CSR has no challengePassword holding the tls-exporter channel binding',
    ],
    [
      'RFC 7030 3.5: the binding of another connection',
      Buffer.alloc(32, 8).toString('base64'),
      exporter,
      'the CSR challengePassword is not the tls-exporter channel binding of this connection',
    ],
    [
      'RFC 7030 3.5: a password instead of the binding',
      'secret',
      exporter,
      'the CSR challengePassword is not the tls-exporter channel binding of this connection',
    ],
    [
      'a connection without binding',
      exporter,
      undefined,
      'the connection offers no tls-exporter channel binding',
    ],
  ])('%s', (_, password, tlsExporter, problem) => {
    expect(channelBindingProblem(password, tlsExporter)).toBe(problem);
  });
});
