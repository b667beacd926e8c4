import { CertlaneError } from '@certlane/contracts';
import { assertMayHandOut } from './hand-out';

const role = { id: 'r-custom', permissions: ['certificate.read', 'certificate.revoke'] };
const refusal = (fn: () => void) => {
  try {
    fn();
  } catch (error) {
    return error as CertlaneError;
  }
  return undefined;
};

describe('assertMayHandOut (ADR 0014)', () => {
  it('lets an admin hand out any role, r-admin included', () => {
    expect(() =>
      assertMayHandOut(
        { caller_admin: true, caller_permissions: [] },
        { id: 'r-admin', permissions: ['x'] },
        'it',
      ),
    ).not.toThrow();
  });

  it('lets a non-admin hand out a role whose permissions it holds', () => {
    expect(() =>
      assertMayHandOut(
        { caller_admin: false, caller_permissions: ['certificate.read', 'certificate.revoke', 'other'] },
        role,
        'granting r-custom',
      ),
    ).not.toThrow();
  });

  it('refuses a non-admin a role with a permission it lacks (403, naming it)', () => {
    const error = refusal(() =>
      assertMayHandOut(
        { caller_admin: false, caller_permissions: ['certificate.read'] },
        role,
        'granting r-custom',
      ),
    );
    expect(error?.code).toBe('forbidden');
    expect(error?.message).toBe(
      'granting r-custom would hand out permissions you do not hold: certificate.revoke',
    );
    expect(error?.details).toEqual({ permission: 'certificate.revoke' });
  });

  it('refuses a non-admin r-admin even when it holds every permission', () => {
    const error = refusal(() =>
      assertMayHandOut(
        { caller_admin: false, caller_permissions: ['x'] },
        { id: 'r-admin', permissions: [] },
        'it',
      ),
    );
    expect(error?.code).toBe('forbidden');
  });
});
