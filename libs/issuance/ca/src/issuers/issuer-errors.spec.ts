import { CertlaneError, ErrorCode } from '@certlane/contracts';
import { IssuerError } from '@certlane/pki';
import { asCertlaneError } from './issuer-errors';

describe(asCertlaneError.name, () => {
  it('answers each kind of CA failure with its code, keeping the message', () => {
    const cases: [IssuerError['kind'], string, number | undefined][] = [
      ['rejected', ErrorCode.ValidationFailed, undefined],
      ['unavailable', ErrorCode.ServiceUnavailable, 30],
      ['misconfigured', ErrorCode.IssuerConfigInvalid, undefined],
      ['unsupported', ErrorCode.NotImplemented, undefined],
    ];
    for (const [kind, code, retryAfter] of cases) {
      const mapped = asCertlaneError(new IssuerError(kind, `the CA said ${kind}`)) as CertlaneError;
      expect(mapped).toBeInstanceOf(CertlaneError);
      expect(mapped.code).toBe(code);
      expect(mapped.message).toBe(`the CA said ${kind}`);
      expect(mapped.details?.retry_after_seconds).toBe(retryAfter);
    }
    expect((asCertlaneError(new IssuerError('rejected', 'no')) as CertlaneError).details).toEqual({
      fields: [{ field: 'csr_pem', message: 'no' }],
    });
  });

  it('leaves every other error as it is', () => {
    const other = new Error('connection refused');
    expect(asCertlaneError(other)).toBe(other);
  });
});
