import { IssuerError } from '@certlane/pki';
import { commandFailure, issueEnvironment, revokeEnvironment, stderrReason } from './script-protocol';

describe(issueEnvironment.name, () => {
  it('names every choice of the request, and leaves out what was not asked', () => {
    expect(
      issueEnvironment('iss-s', {
        csrPem: '',
        idempotencyKey: 'job-1',
        profile: {
          validityDays: 30,
          notBefore: new Date('2026-12-01T00:00:00Z'),
          notAfter: new Date('2026-12-31T00:00:00Z'),
          commonName: '',
          subjectAltNames: [
            { type: 'dns', value: 'a.example' },
            { type: 'ip', value: '10.0.0.1' },
          ],
          keyUsage: ['digitalSignature'],
          extendedKeyUsage: ['serverAuth', 'clientAuth'],
          mustStaple: true,
          caProfile: 'web',
        },
      }),
    ).toEqual({
      CERTLANE_OPERATION: 'issue',
      CERTLANE_ISSUER_ID: 'iss-s',
      CERTLANE_REQUEST_ID: 'job-1',
      CERTLANE_VALIDITY_DAYS: '30',
      CERTLANE_NOT_BEFORE: '2026-12-01T00:00:00.000Z',
      CERTLANE_NOT_AFTER: '2026-12-31T00:00:00.000Z',
      CERTLANE_COMMON_NAME: '',
      CERTLANE_SANS: 'dns:a.example ip:10.0.0.1',
      CERTLANE_KEY_USAGE: 'digitalSignature',
      CERTLANE_EXTENDED_KEY_USAGE: 'serverAuth clientAuth',
      CERTLANE_MUST_STAPLE: 'true',
      CERTLANE_CA_PROFILE: 'web',
    });
    const minimal = issueEnvironment('iss-s', { csrPem: '', idempotencyKey: '', profile: {} });
    expect(Object.keys(minimal).sort()).toEqual([
      'CERTLANE_ISSUER_ID',
      'CERTLANE_OPERATION',
      'CERTLANE_REQUEST_ID',
    ]);
    expect(minimal.CERTLANE_REQUEST_ID).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe(revokeEnvironment.name, () => {
  it('names the serial, the reason and the date', () => {
    expect(
      revokeEnvironment('iss-s', {
        serialNumber: '0a1b',
        reason: 'keyCompromise',
        revokedAt: new Date('2026-12-01T10:00:00Z'),
        idempotencyKey: 'iss-s/0a1b',
      }),
    ).toEqual({
      CERTLANE_OPERATION: 'revoke',
      CERTLANE_ISSUER_ID: 'iss-s',
      CERTLANE_REQUEST_ID: 'iss-s/0a1b',
      CERTLANE_SERIAL: '0a1b',
      CERTLANE_REASON: 'keyCompromise',
      CERTLANE_REVOKED_AT: '2026-12-01T10:00:00.000Z',
    });
  });
});

describe(stderrReason.name, () => {
  it('keeps the last non-empty line, without control characters, at most 200 characters', () => {
    expect(stderrReason('first\nsecond \x1b[31mred\x1b[0m\n\n')).toBe('second  [31mred [0m');
    expect(stderrReason('')).toBe('');
    expect(stderrReason('x'.repeat(500))).toBe(`${'x'.repeat(200)}...`);
  });
});

describe(commandFailure.name, () => {
  const result = (exitCode: number | null, stderr = '', timedOut = false) => ({
    exitCode,
    stdout: '',
    stderr,
    timedOut,
  });

  it('is null for exit 0 and classifies every other ending', () => {
    expect(commandFailure(result(0), 'cmd', 5)).toBeNull();
    expect(commandFailure(result(null, '', true), 'cmd', 5)).toEqual(
      new IssuerError('unavailable', 'cmd did not finish within 5 s'),
    );
    expect(commandFailure(result(75, 'down'), 'cmd', 5)).toEqual(
      new IssuerError('unavailable', 'cmd reported the CA unavailable (exit 75): down'),
    );
    expect(commandFailure(result(null, 'ENOENT: cannot start /x'), 'cmd', 5)).toEqual(
      new IssuerError('misconfigured', 'cmd could not be run: ENOENT: cannot start /x'),
    );
    expect(commandFailure(result(1), 'cmd', 5)).toEqual(
      new IssuerError('rejected', 'cmd refused the request (exit 1)'),
    );
  });
});
