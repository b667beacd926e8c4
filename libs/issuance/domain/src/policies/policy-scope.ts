import type { CertificateStatus } from '@certlane/contracts';

/**
 * Certificates out of service raise no policy violations (ADR 0043): a revoked, archived or
 * expired certificate is not going to be fixed, and its open violations are resolved.
 */
export const POLICY_EXEMPT_STATUSES: readonly CertificateStatus[] = ['Revoked', 'Archived', 'Expired'];

export const isPolicyExempt = (status: CertificateStatus): boolean => POLICY_EXEMPT_STATUSES.includes(status);
