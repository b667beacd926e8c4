import { problemOf } from '../testing/problem-of';
import { createHash } from 'node:crypto';
import { checkTlsAlpn01Handshake, tlsAlpn01ServerName } from './tls-alpn-01';

const KEY_AUTH = 'token.thumbprint';
const value = (keyAuth = KEY_AUTH) =>
  Buffer.concat([Buffer.from([0x04, 0x20]), createHash('sha256').update(keyAuth).digest()]);
const dns = { type: 'dns' as const, value: 'www.example.com' };
const good = () => ({
  alpnProtocol: 'acme-tls/1',
  subjectAltNames: [{ type: 'dns', value: 'www.example.com' }],
  acmeIdentifier: { critical: true, value: value() },
});

describe('tls-alpn-01 (RFC 8737)', () => {
  it('accepts the certificate the RFC describes', () => {
    expect(() => checkTlsAlpn01Handshake(good(), dns, KEY_AUTH)).not.toThrow();
  });

  it('RFC 8737 3: the handshake MUST negotiate acme-tls/1', () => {
    expect(
      problemOf(() => checkTlsAlpn01Handshake({ ...good(), alpnProtocol: 'h2' }, dns, KEY_AUTH)).type,
    ).toBe('tls');
  });

  it('RFC 8737 3: the certificate MUST carry exactly one SAN, the identifier', () => {
    const two = {
      ...good(),
      subjectAltNames: [...good().subjectAltNames, { type: 'dns', value: 'x.example.com' }],
    };
    expect(problemOf(() => checkTlsAlpn01Handshake(two, dns, KEY_AUTH)).type).toBe('unauthorized');
    const other = { ...good(), subjectAltNames: [{ type: 'dns', value: 'x.example.com' }] };
    expect(problemOf(() => checkTlsAlpn01Handshake(other, dns, KEY_AUTH)).type).toBe('unauthorized');
  });

  it('RFC 8737 3: the acmeIdentifier extension MUST be present and critical', () => {
    expect(
      problemOf(() => checkTlsAlpn01Handshake({ ...good(), acmeIdentifier: undefined }, dns, KEY_AUTH)).type,
    ).toBe('unauthorized');
    const notCritical = { ...good(), acmeIdentifier: { critical: false, value: value() } };
    expect(problemOf(() => checkTlsAlpn01Handshake(notCritical, dns, KEY_AUTH)).type).toBe('unauthorized');
  });

  it('RFC 8737 3: the acmeIdentifier MUST hold the SHA-256 of the key authorization', () => {
    const wrong = { ...good(), acmeIdentifier: { critical: true, value: value('other') } };
    expect(problemOf(() => checkTlsAlpn01Handshake(wrong, dns, KEY_AUTH)).type).toBe('unauthorized');
  });

  it('RFC 8738 6: names an IP identifier by its reverse-DNS name', () => {
    expect(tlsAlpn01ServerName({ type: 'ip', value: '192.0.2.1' })).toBe('1.2.0.192.in-addr.arpa');
    expect(tlsAlpn01ServerName({ type: 'ip', value: '2001:db8::1' })).toBe(
      '1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2.ip6.arpa',
    );
    expect(tlsAlpn01ServerName(dns)).toBe('www.example.com');
  });
});
