import type { DeploymentResult, DeploymentStep } from '@certlane/connectors';
import { verificationOf } from './verification';

const NEW = 'ab'.repeat(32);
const OLD = 'cd'.repeat(32);
const endpoint = '127.0.0.1:8443';
const ok = (step: DeploymentStep['step'], detail?: string): DeploymentStep => ({ step, ok: true, detail });
const failed = (step: DeploymentStep['step'], detail?: string): DeploymentStep => ({
  step,
  ok: false,
  detail,
});
const result = (steps: DeploymentStep[], served?: string): DeploymentResult => ({
  ok: steps.every((s) => s.ok),
  rolledBack: !steps.every((s) => s.ok),
  steps,
  ...(served ? { servedFingerprintSha256: served } : {}),
});

describe(verificationOf.name, () => {
  it('reports verified with the served leaf when the verify step passed', () => {
    expect(
      verificationOf(
        result([ok('write'), ok('swap'), ok('validate'), ok('reload'), ok('verify', 'serves it')], NEW),
        endpoint,
      ),
    ).toEqual({ endpoint, served_fingerprint_sha256: NEW, result: 'verified' });
  });

  it('reports a mismatch with the leaf the endpoint served instead', () => {
    expect(
      verificationOf(
        result(
          [ok('write'), ok('swap'), ok('validate'), ok('reload'), failed('verify'), ok('rollback')],
          OLD,
        ),
        endpoint,
      ),
    ).toEqual({ endpoint, served_fingerprint_sha256: OLD, result: 'mismatch' });
  });

  it('reports unreachable with the verify step detail when no leaf was read', () => {
    const detail = `${endpoint} could not be checked: ECONNREFUSED`;
    expect(
      verificationOf(result([ok('write'), ok('swap'), ok('reload'), failed('verify', detail)]), endpoint),
    ).toEqual({ endpoint, result: 'unreachable', error: detail });
    expect(verificationOf(result([failed('verify')]), endpoint)).toEqual({
      endpoint,
      result: 'unreachable',
      error: 'the endpoint could not be checked',
    });
    expect(verificationOf(result([failed('verify', 'x'.repeat(5000))]), endpoint)?.error).toHaveLength(2000);
  });

  it('reports nothing when the deployment failed before verifying', () => {
    expect(
      verificationOf(result([ok('write'), ok('swap'), failed('validate'), ok('rollback')]), endpoint),
    ).toBeUndefined();
  });

  it('reports nothing without an endpoint, or when the verify step checked nothing', () => {
    const skipped = result([ok('write'), ok('verify', 'not verified: the target has no endpoint')]);
    expect(verificationOf(skipped, undefined)).toBeUndefined();
    expect(verificationOf(skipped, endpoint)).toBeUndefined();
    expect(verificationOf(result([ok('verify')], NEW), undefined)).toBeUndefined();
  });
});
