import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import {
  base64Body,
  basicChallenge,
  certsOnly,
  csrAttrs,
  decodeCsrBody,
  parseBasicAuthorization,
} from './est-wire';

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);
const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
type Keys = Parameters<typeof x509.X509CertificateGenerator.createSelfSigned>[0]['keys'];

async function keys(): Promise<Keys> {
  return (await webcrypto.subtle.generateKey(ALG, false, ['sign', 'verify'])) as unknown as Keys;
}

describe('EST request bodies (RFC 7030 4.2.1, RFC 8951 3)', () => {
  let der: Buffer;
  beforeAll(async () => {
    const csr = await x509.Pkcs10CertificateRequestGenerator.create({
      name: 'CN=device.example',
      keys: await keys(),
      signingAlgorithm: ALG,
    });
    der = Buffer.from(csr.rawData);
  });

  it.each([
    ['base64 of the DER', () => der.toString('base64')],
    ['base64 in CRLF lines with a trailing newline', () => base64Body(der) + '\r\n'],
    ['base64 in LF lines', () => base64Body(der).replace(/\r/g, '')],
    [
      'PEM',
      () => `-----BEGIN CERTIFICATE REQUEST-----\n${base64Body(der)}-----END CERTIFICATE REQUEST-----\n`,
    ],
    [
      'PEM with NEW and CRLF',
      () =>
        `-----BEGIN NEW CERTIFICATE REQUEST-----\r\n${base64Body(der)}-----END NEW CERTIFICATE REQUEST-----\r\n`,
    ],
  ])('reads %s', (_, body) => {
    expect(decodeCsrBody(body())).toEqual({ ok: true, der });
  });

  it.each([
    ['RFC 7030 4.2.1: malformed base64', '!!!not-base64!!!', 'the body is not base64 (RFC 7030 4.2.1)'],
    ['RFC 7030 4.2.1: base64 cut in the middle', 'MIIBAA', 'the body is not base64 (RFC 7030 4.2.1)'],
    ['RFC 7030 4.2.1: raw binary DER', '\u0030\u0082\u0001', 'the body is not base64 (RFC 7030 4.2.1)'],
    ['an empty body', ' \r\n', 'the body is empty'],
    [
      'base64 of something that is not DER',
      Buffer.from('hello world!').toString('base64'),
      'the body is not a DER PKCS#10 request',
    ],
  ])('refuses %s', (_, body, reason) => {
    expect(decodeCsrBody(body)).toEqual({ ok: false, reason });
  });
});

describe('EST HTTP Basic (RFC 7030 3.2.3, RFC 7617)', () => {
  const header = (text: string) => `Basic ${Buffer.from(text).toString('base64')}`;

  it('reads the user and the password, which may hold colons', () => {
    expect(parseBasicAuthorization(header('router:pa:ss word'))).toEqual({
      username: 'router',
      password: 'pa:ss word',
    });
    expect(parseBasicAuthorization(header('router:'))).toEqual({ username: 'router', password: '' });
    expect(parseBasicAuthorization(`basic  ${Buffer.from('a:b').toString('base64')}`)).toEqual({
      username: 'a',
      password: 'b',
    });
  });

  it.each([undefined, '', 'Bearer abc', 'Basic', 'Basic !!', header('no-colon'), header(':empty-user')])(
    'finds no credentials in %p',
    (value) => {
      expect(parseBasicAuthorization(value)).toBeNull();
    },
  );

  it('challenges with the realm, quotes escaped', () => {
    expect(basicChallenge('certlane EST routers')).toBe(
      'Basic realm="certlane EST routers", charset="UTF-8"',
    );
    expect(basicChallenge('a"b\\c')).toBe('Basic realm="a\\"b\\\\c", charset="UTF-8"');
  });
});

describe('EST answers', () => {
  it('RFC 7030 4.1.3: certs-only SignedData holds the certificates, no signer, id-data content type', () => {
    const a = Buffer.from('3003020101', 'hex');
    const b = Buffer.from('3003020102', 'hex');
    const signedData =
      '3020' +
      '020101' +
      '3100' +
      '300b06092a864886f70d010701' +
      'a00a' +
      a.toString('hex') +
      b.toString('hex') +
      '3100';
    expect(certsOnly([a, b]).toString('hex')).toBe('302f' + '06092a864886f70d010702' + 'a022' + signedData);
  });

  it('encodes long lengths in DER long form', () => {
    const big = Buffer.concat([Buffer.from([0x30, 0x82, 0x01, 0x2c]), Buffer.alloc(300)]);
    const der = certsOnly([big]);
    expect(der.subarray(0, 2).toString('hex')).toBe('3082');
    expect(der.readUInt16BE(2)).toBe(der.length - 4);
  });

  it('writes base64 in CRLF lines of 64 characters', () => {
    const body = base64Body(Buffer.alloc(100, 7));
    const lines = body.split('\r\n');
    expect(lines.slice(0, -1).map((l) => l.length)).toEqual([64, 64, 8]);
    expect(lines.at(-1)).toBe('');
    expect(Buffer.from(body, 'base64')).toEqual(Buffer.alloc(100, 7));
  });

  it('RFC 7030 4.5.2: csrattrs is a SEQUENCE OF the required OIDs, each once, unknown names dropped', () => {
    expect(csrAttrs([]).toString('hex')).toBe('3000');
    // 2.5.4.3 = 06 03 55 04 03; 1.2.840.113549.1.9.7 = 06 09 2a 86 48 86 f7 0d 01 09 07
    expect(
      csrAttrs(['commonName', 'noSuchAttribute', 'challengePassword', 'commonName']).toString('hex'),
    ).toBe('3010' + '0603550403' + '06092a864886f70d010907');
  });

  it('RFC 7030 4.5.2: csrattrs names challengePassword when channel binding is required, and the key types allowed', () => {
    const challengePassword = '06092a864886f70d010907';
    expect(csrAttrs([], { channelBinding: true }).toString('hex')).toBe('300b' + challengePassword);
    // 4.5.2's example: SEQUENCE { ecPublicKey, SET { secp384r1 } }; then rsaEncryption.
    expect(csrAttrs([], { keyAlgorithms: ['ECDSA-P384', 'RSA-2048', 'RSA-3072'] }).toString('hex')).toBe(
      '301f' + '3012' + '06072a8648ce3d0201' + '3107' + '06052b81040022' + '06092a864886f70d010101',
    );
    expect(csrAttrs([], { keyAlgorithms: ['Ed25519'] }).toString('hex')).toBe('3005' + '06032b6570');
  });
});
