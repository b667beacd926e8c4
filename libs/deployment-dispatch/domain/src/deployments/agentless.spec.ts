import { runsAgentless, stepsSummary, verificationRecord } from './agentless';

describe('runsAgentless', () => {
  const event = { type: 'Deployment' as const, status: 'Pending' as const, target_id: 'tgt-1' };
  const ssh = { kind: 'ssh' as const, agent_id: null, retired: false };

  it('takes a pending deployment to an ssh target without agent', () => {
    expect(runsAgentless(event, ssh)).toBe(true);
  });

  it('leaves everything else alone', () => {
    expect(runsAgentless(event, { ...ssh, agent_id: 'proxy-1' })).toBe(false);
    expect(runsAgentless(event, { ...ssh, kind: 'nginx' })).toBe(false);
    expect(runsAgentless(event, { ...ssh, retired: true })).toBe(false);
    expect(runsAgentless(event, null)).toBe(false);
    expect(runsAgentless({ ...event, target_id: '' }, ssh)).toBe(false);
    expect(runsAgentless({ ...event, type: 'Renewal' }, ssh)).toBe(false);
    expect(runsAgentless({ ...event, status: 'AwaitingApproval' }, ssh)).toBe(false);
  });
});

describe('verificationRecord', () => {
  const expected = 'ab'.repeat(32);
  const other = 'cd'.repeat(32);
  const steps = (verify?: { ok: boolean; detail?: string }) => [
    { step: 'write', ok: true },
    { step: 'swap', ok: true },
    ...(verify ? [{ step: 'verify', ...verify }] : []),
  ];

  it('verified when the verify step passed', () => {
    expect(
      verificationRecord('web:443', expected, {
        ok: true,
        steps: steps({ ok: true }),
        servedFingerprintSha256: expected.toUpperCase(),
      }),
    ).toEqual({ endpoint: 'web:443', result: 'verified', served_fingerprint_sha256: expected, error: '' });
  });

  it('mismatch when another leaf was served, unreachable when none was', () => {
    expect(
      verificationRecord('web:443', expected, {
        ok: false,
        steps: steps({ ok: false, detail: 'serves other' }),
        servedFingerprintSha256: other,
      }),
    ).toEqual({
      endpoint: 'web:443',
      result: 'mismatch',
      served_fingerprint_sha256: other,
      error: 'serves other',
    });
    expect(
      verificationRecord('web:443', expected, {
        ok: false,
        steps: steps({ ok: false, detail: 'ECONNREFUSED' }),
      }),
    ).toEqual({
      endpoint: 'web:443',
      result: 'unreachable',
      served_fingerprint_sha256: '',
      error: 'ECONNREFUSED',
    });
  });

  it('nothing without an endpoint or a verify step', () => {
    expect(verificationRecord(null, expected, { ok: true, steps: steps({ ok: true }) })).toBeNull();
    expect(verificationRecord('web:443', expected, { ok: false, steps: steps() })).toBeNull();
  });
});

describe('stepsSummary', () => {
  it('lists the steps with the failure detail', () => {
    expect(
      stepsSummary([
        { step: 'write', ok: true, detail: '2 file(s)' },
        { step: 'validate', ok: false, detail: 'nginx exit code 1' },
      ]),
    ).toBe('write ok; validate failed (nginx exit code 1)');
  });
});
