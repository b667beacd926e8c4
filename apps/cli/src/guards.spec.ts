import { REVOCATION_REASONS } from '@certlane/contracts';
import { UsageError } from './exit-codes';
import { checkBeforeSending, isDestructive, reasonMenu } from './guards';

describe(checkBeforeSending.name, () => {
  it('refuses a revocation without --reason and lists the ten reasons (spec 7)', () => {
    let error: unknown;
    try {
      checkBeforeSending('revokeManagedCertificate', 'certlane certs revoke', {}, undefined);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(UsageError);
    for (const reason of REVOCATION_REASONS) expect((error as Error).message).toContain(reason);
    expect(() =>
      checkBeforeSending('bulkRevokeCertificates', 'certlane bulk revoke', {}, { owner_id: 'o' }),
    ).toThrow(/--reason/);
  });

  it('lets a revocation with a reason through', () => {
    expect(() =>
      checkBeforeSending('revokeManagedCertificate', 'x', {}, { reason: 'keyCompromise' }),
    ).not.toThrow();
  });

  it('refuses agents retire --force without --reason (spec 7), and allows either alone', () => {
    expect(() =>
      checkBeforeSending('retireAgent', 'certlane agents retire', { force: true }, undefined),
    ).toThrow(/--force needs --reason/);
    expect(() =>
      checkBeforeSending('retireAgent', 'x', { force: true, reason: 'moved' }, undefined),
    ).not.toThrow();
    expect(() => checkBeforeSending('retireAgent', 'x', {}, undefined)).not.toThrow();
  });

  it('menus exactly the ten reasons', () => {
    expect(reasonMenu().split('\n')).toHaveLength(10);
  });

  it.each([
    ['deleteTarget', 'DELETE', true],
    ['retireAgent', 'DELETE', true],
    ['bulkRenewCertificates', 'POST', true],
    // RFC 9773 early renewal of a whole ACME account or profile asks first; of one certificate not.
    ['acmeBulkRenewCertificatesEarly', 'POST', true],
    ['acmeRenewCertificateEarly', 'POST', false],
    ['revokeManagedCertificate', 'POST', true],
    ['listCertificates', 'GET', false],
    ['renewCertificate', 'POST', false],
    // The old secret stops working; what the demo left is gone.
    ['rotateApiKey', 'POST', true],
    ['scepRotateRa', 'POST', true],
    ['cleanupDemoResidual', 'POST', true],
  ])('%s is destructive: %s', (id, method, expected) => {
    expect(isDestructive(id, method)).toBe(expected);
  });
});
