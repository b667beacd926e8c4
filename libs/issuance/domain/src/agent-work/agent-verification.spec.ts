import { AGENT_REPORT_STATUSES, JOB_TYPES } from '@certlane/contracts';
import { agentVerificationRecord, normalFingerprint } from './agent-verification';

const EXPECTED = 'ab'.repeat(32);
const OTHER = 'cd'.repeat(32);
const colons = (hex: string) => hex.toUpperCase().match(/../g)!.join(':');
const deployment = (reported: 'Completed' | 'Failed' = 'Completed') => ({
  type: 'Deployment' as const,
  reported,
  expectedFingerprintSha256: EXPECTED,
});
const endpoint = '127.0.0.1:8443';

describe(agentVerificationRecord.name, () => {
  it('keeps a verified deployment with the version fingerprint as the expected one', () => {
    expect(
      agentVerificationRecord(
        { endpoint, served_fingerprint_sha256: EXPECTED, result: 'verified' },
        deployment(),
      ),
    ).toEqual({
      ok: true,
      record: {
        endpoint,
        result: 'verified',
        expected_fingerprint_sha256: EXPECTED,
        served_fingerprint_sha256: EXPECTED,
        error: '',
      },
    });
  });

  it('compares fingerprints without case or colons and stores them normalised', () => {
    const check = agentVerificationRecord(
      { endpoint, served_fingerprint_sha256: colons(EXPECTED), result: 'verified' },
      { ...deployment(), expectedFingerprintSha256: colons(EXPECTED) },
    );
    expect(check).toMatchObject({
      ok: true,
      record: { served_fingerprint_sha256: EXPECTED, expected_fingerprint_sha256: EXPECTED },
    });
    expect(normalFingerprint('AB:CD')).toBe('abcd');
  });

  it('keeps a mismatch of a failed deployment with the leaf that was served', () => {
    expect(
      agentVerificationRecord(
        { endpoint, served_fingerprint_sha256: OTHER, result: 'mismatch' },
        deployment('Failed'),
      ),
    ).toMatchObject({
      ok: true,
      record: { result: 'mismatch', served_fingerprint_sha256: OTHER, error: '' },
    });
  });

  it('keeps an unreachable endpoint with the reason, or a default one', () => {
    expect(
      agentVerificationRecord(
        { endpoint, result: 'unreachable', error: 'ECONNREFUSED' },
        deployment('Failed'),
      ),
    ).toMatchObject({
      ok: true,
      record: { result: 'unreachable', served_fingerprint_sha256: '', error: 'ECONNREFUSED' },
    });
    expect(agentVerificationRecord({ endpoint, result: 'unreachable' }, deployment('Failed'))).toMatchObject({
      ok: true,
      record: { error: 'the endpoint could not be checked' },
    });
  });

  it('refuses "verified" when the served leaf is not the version the job deployed', () => {
    expect(
      agentVerificationRecord(
        { endpoint, served_fingerprint_sha256: OTHER, result: 'verified' },
        deployment(),
      ),
    ).toEqual({ ok: false, field: 'verification.result', message: expect.stringContaining('not verified') });
  });

  it('refuses "mismatch" when the served leaf is the deployed version', () => {
    expect(
      agentVerificationRecord(
        { endpoint, served_fingerprint_sha256: EXPECTED, result: 'mismatch' },
        deployment('Failed'),
      ),
    ).toEqual({
      ok: false,
      field: 'verification.result',
      message: expect.stringContaining('not a mismatch'),
    });
  });

  it.each(['verified', 'mismatch'] as const)('refuses %s without the served fingerprint', (result) => {
    for (const served of [undefined, '']) {
      expect(
        agentVerificationRecord({ endpoint, served_fingerprint_sha256: served, result }, deployment()),
      ).toMatchObject({ ok: false, field: 'verification.served_fingerprint_sha256' });
    }
  });

  it('refuses a verification on every job type but Deployment, and with a Running report', () => {
    for (const type of JOB_TYPES) {
      for (const reported of AGENT_REPORT_STATUSES) {
        const check = agentVerificationRecord(
          { endpoint, served_fingerprint_sha256: EXPECTED, result: 'verified' },
          { type, reported, expectedFingerprintSha256: EXPECTED },
        );
        expect([type, reported, check.ok]).toEqual([
          type,
          reported,
          type === 'Deployment' && reported !== 'Running',
        ]);
      }
    }
  });
});
