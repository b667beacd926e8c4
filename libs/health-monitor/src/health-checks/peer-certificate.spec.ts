import { DetailedPeerCertificate } from 'node:tls';
import { certificateTime, describePeer } from './peer-certificate';

const peer = (over: Partial<DetailedPeerCertificate> = {}): DetailedPeerCertificate =>
  ({
    subject: { CN: 'leaf.test' },
    issuer: { CN: 'Test CA' },
    fingerprint256: 'AB:CD',
    valid_from: 'Jan  1 00:00:00 2026 GMT',
    valid_to: 'Jan  1 00:00:00 2027 GMT',
    raw: Buffer.from([0x30, 0x00]),
    ...over,
  }) as DetailedPeerCertificate;

describe('certificateTime', () => {
  it('reads the time OpenSSL prints', () => {
    expect(certificateTime('Jan  1 00:00:00 2026 GMT')).toEqual(new Date('2026-01-01T00:00:00Z'));
  });

  it('answers null for "Bad time value" instead of an Invalid Date', () => {
    expect(certificateTime('Bad time value')).toBeNull();
    expect(certificateTime(undefined)).toBeNull();
  });
});

describe('describePeer', () => {
  it('describes the leaf with colonless fingerprint and ISO times', () => {
    expect(describePeer(peer())).toMatchObject({
      ok: true,
      fingerprint: 'abcd',
      notBefore: new Date('2026-01-01T00:00:00Z'),
      chain: [{ subject: 'CN=leaf.test', not_after: '2027-01-01T00:00:00.000Z' }],
    });
  });

  // Regression: `new Date('Bad time value').toISOString()` threw inside the secureConnect
  // listener, and the uncaught RangeError ended the process.
  it('is a failure, not a throw, when a served certificate has an unreadable time', () => {
    expect(describePeer(peer({ valid_to: 'Bad time value' }))).toEqual({
      ok: false,
      error: 'the server presented a certificate whose validity time cannot be read (CN=leaf.test)',
    });
    const intermediate = peer({
      subject: { CN: 'Sub CA' } as never,
      fingerprint256: 'EF',
      valid_from: 'Bad time value',
    });
    expect(describePeer(peer({ issuerCertificate: intermediate }))).toMatchObject({ ok: false });
  });

  it('is a failure when the server presented no certificate', () => {
    expect(describePeer({} as DetailedPeerCertificate)).toEqual({
      ok: false,
      error: 'the server presented no certificate',
    });
    expect(describePeer(null)).toMatchObject({ ok: false });
  });
});
