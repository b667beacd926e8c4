import {
  EST_APPROVAL_RETRY_AFTER_SECONDS,
  EstApprovalOutcome,
  estApprovalAnswer,
  estApprovalReferenceKey,
} from './est-approval';

describe('EST enrollment held for approval (RFC 7030 4.2.3)', () => {
  const outcome = (state: EstApprovalOutcome['state'], extra: Partial<EstApprovalOutcome> = {}) =>
    estApprovalAnswer({ approvalId: 'ap-1', state, certificatePem: null, reason: null, ...extra });

  it('RFC 7030 4.2.3: pending is answered 202 with a Retry-After', () => {
    expect(outcome('pending')).toEqual({
      kind: 'pending',
      retryAfterSeconds: EST_APPROVAL_RETRY_AFTER_SECONDS,
    });
    expect(EST_APPROVAL_RETRY_AFTER_SECONDS).toBeGreaterThan(0);
  });

  it('issued answers the certificate', () => {
    expect(outcome('issued', { certificatePem: 'PEM' })).toEqual({ kind: 'issued', certificatePem: 'PEM' });
  });

  it('issued without a certificate is a server error, never an empty answer', () => {
    expect(outcome('issued')).toMatchObject({ kind: 'refused', status: 500 });
  });

  it('RFC 7030 4.2.3: rejected is 403 with the approver reason', () => {
    expect(outcome('rejected', { reason: 'unknown device' })).toEqual({
      kind: 'refused',
      status: 403,
      message: 'the enrollment was rejected by an approver (approval ap-1): unknown device',
    });
  });

  it('RFC 7030 4.2.3: expired is 403 and asks for a new CSR', () => {
    expect(outcome('expired', { reason: 'expired' })).toEqual({
      kind: 'refused',
      status: 403,
      message: expect.stringMatching(/approval ap-1 expired.*new CSR/),
    });
  });

  it('failed (approved, not issuable) is 500 with the issuance error', () => {
    expect(outcome('failed', { reason: 'the CA is disabled' })).toEqual({
      kind: 'refused',
      status: 500,
      message: 'the approved enrollment could not be issued (approval ap-1): the CA is disabled',
    });
  });

  describe('the reference key', () => {
    const base = {
      profileId: 'p1',
      operation: 'simpleenroll',
      principal: 'basic:router',
      csrDer: Buffer.from([1, 2, 3]),
    };

    it('RFC 7030 4.2.3: the same request sent again maps to the same key', () => {
      expect(estApprovalReferenceKey({ ...base, csrDer: Buffer.from([1, 2, 3]) })).toBe(
        estApprovalReferenceKey(base),
      );
      expect(estApprovalReferenceKey(base)).toMatch(/^est:p1:simpleenroll:[0-9a-f]{64}$/);
    });

    it.each<[string, Partial<typeof base>]>([
      ['another CSR', { csrDer: Buffer.from([1, 2, 4]) }],
      ['another principal', { principal: 'basic:other' }],
      ['another profile', { profileId: 'p2' }],
      ['another operation', { operation: 'simplereenroll' }],
    ])('%s is another request, another key', (_, change) => {
      expect(estApprovalReferenceKey({ ...base, ...change })).not.toBe(estApprovalReferenceKey(base));
    });
  });
});
