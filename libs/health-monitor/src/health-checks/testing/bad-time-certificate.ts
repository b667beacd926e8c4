import { generateKeyPairSync, sign, X509Certificate } from 'node:crypto';

const length = (n: number) =>
  n < 0x80 ? Buffer.from([n]) : n < 0x100 ? Buffer.from([0x81, n]) : Buffer.from([0x82, n >> 8, n & 0xff]);
const tlv = (tag: number, ...parts: Buffer[]) => {
  const content = Buffer.concat(parts);
  return Buffer.concat([Buffer.from([tag]), length(content.length), content]);
};
const sequence = (...parts: Buffer[]) => tlv(0x30, ...parts);
const ECDSA_WITH_SHA256 = sequence(tlv(0x06, Buffer.from('2a8648ce3d040302', 'hex')));
const utcTime = (text: string) => tlv(0x17, Buffer.from(text, 'latin1'));

/**
 * A self-signed P-256 certificate whose validity times are UTCTime strings OpenSSL cannot decode
 * (month 13), so Node prints them as "Bad time value". Built by hand: no certificate builder
 * writes an invalid time. OpenSSL still loads it into a TLS server and serves it.
 */
export function badTimeCertificate(commonName = 'bad-time.test'): { pem: string; keyPem: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const name = sequence(
    tlv(0x31, sequence(tlv(0x06, Buffer.from('550403', 'hex')), tlv(0x0c, Buffer.from(commonName)))),
  );
  const tbs = sequence(
    tlv(0xa0, tlv(0x02, Buffer.from([2]))),
    tlv(0x02, Buffer.from([1])),
    ECDSA_WITH_SHA256,
    name,
    sequence(utcTime('251332000000Z'), utcTime('351332000000Z')),
    name,
    publicKey.export({ type: 'spki', format: 'der' }),
  );
  const der = sequence(tbs, ECDSA_WITH_SHA256, tlv(0x03, Buffer.from([0]), sign('sha256', tbs, privateKey)));
  return {
    pem: new X509Certificate(der).toString(),
    keyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  };
}
