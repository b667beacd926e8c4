import { judgeProbe } from './probe-verdict';

const now = new Date('2026-11-24T12:00:00Z');
const handshake = (notBefore: string, notAfter: string) => ({
  kind: 'handshake' as const,
  fingerprint: 'ab',
  notBefore: new Date(notBefore),
  notAfter: new Date(notAfter),
});

describe('judgeProbe', () => {
  it('passes a certificate inside its validity window', () => {
    expect(judgeProbe(handshake('2026-01-01T00:00:00Z', '2027-01-01T00:00:00Z'), now)).toEqual({
      kind: 'served',
      fingerprint: 'ab',
    });
  });

  it('fails an expired certificate, the instant of notAfter included', () => {
    const verdict = judgeProbe(handshake('2026-01-01T00:00:00Z', '2026-11-24T12:00:00Z'), now);
    expect(verdict).toEqual({ kind: 'failed', error: 'certificate expired at 2026-11-24T12:00:00.000Z' });
  });

  it('fails a certificate that is not valid yet', () => {
    const verdict = judgeProbe(handshake('2026-11-25T00:00:00Z', '2027-01-01T00:00:00Z'), now);
    expect(verdict.kind).toBe('failed');
  });

  it('fails a probe that did not complete a handshake, keeping its error', () => {
    expect(judgeProbe({ kind: 'error', error: 'connect ECONNREFUSED 127.0.0.2:443' }, now)).toEqual({
      kind: 'failed',
      error: 'connect ECONNREFUSED 127.0.0.2:443',
    });
  });
});
