import { createHash } from 'node:crypto';
import { EnrollmentState } from '@certlane/contracts';

/** RFC 7030 4.2.3: how long a client waits before sending a held request again. */
export const EST_APPROVAL_RETRY_AFTER_SECONDS = 60;

/**
 * Why serverkeygen is refused on a certificate profile that requires approval: the key the server
 * generates exists only in memory for the one response, so it cannot wait for a decision.
 */
export const EST_SERVERKEYGEN_APPROVAL_REFUSAL =
  'serverkeygen is not available when the certificate profile requires approval: the server-generated key exists only for one response and cannot wait for a decision; generate the key on the client and use simpleenroll';

/** Where an EST enrollment held for approval stands (issuance's enrollment approval, ADR 0065). */
export interface EstApprovalOutcome {
  approvalId: string;
  state: EnrollmentState;
  /** The issued leaf, when `issued`. */
  certificatePem: string | null;
  /** The decider's reason (rejected), `expired`, or the issuance error (failed). */
  reason: string | null;
}

/** What an EST request held for approval is answered (RFC 7030 4.2.3). */
export type EstApprovalAnswer =
  | { kind: 'pending'; retryAfterSeconds: number }
  | { kind: 'issued'; certificatePem: string }
  | { kind: 'refused'; status: 403 | 500; message: string };

/**
 * RFC 7030 4.2.3: pending is 202 with Retry-After; issued is the certificate, answered again to
 * every repeat of the request (a client may have lost the first answer); rejected and expired are
 * 403 (the request will not be granted: a new CSR opens a new approval); an approved request that
 * issuance could not issue is 500.
 */
export function estApprovalAnswer(outcome: EstApprovalOutcome): EstApprovalAnswer {
  const why = outcome.reason ? `: ${outcome.reason}` : '';
  switch (outcome.state) {
    case 'pending':
      return { kind: 'pending', retryAfterSeconds: EST_APPROVAL_RETRY_AFTER_SECONDS };
    case 'issued':
      return outcome.certificatePem
        ? { kind: 'issued', certificatePem: outcome.certificatePem }
        : {
            kind: 'refused',
            status: 500,
            message: `approval ${outcome.approvalId} is issued without a certificate`,
          };
    case 'rejected':
      return {
        kind: 'refused',
        status: 403,
        message: `the enrollment was rejected by an approver (approval ${outcome.approvalId})${why}`,
      };
    case 'expired':
      return {
        kind: 'refused',
        status: 403,
        message: `the enrollment was not decided before its deadline (approval ${outcome.approvalId} expired); send a new CSR`,
      };
    case 'failed':
      return {
        kind: 'refused',
        status: 500,
        message: `the approved enrollment could not be issued (approval ${outcome.approvalId})${why}`,
      };
  }
}

/**
 * The approval key of an EST request: the same request sent again (RFC 7030 4.2.3: same profile,
 * operation, principal and CSR) maps to the same key, so a retry finds its approval and never
 * opens a second one; the principal and the CSR are hashed to keep the key short.
 */
export function estApprovalReferenceKey(request: {
  profileId: string;
  operation: string;
  principal: string;
  csrDer: Uint8Array;
}): string {
  const digest = createHash('sha256')
    .update(request.principal)
    .update(Buffer.from([0]))
    .update(request.csrDer)
    .digest('hex');
  return `est:${request.profileId}:${request.operation}:${digest}`;
}

/** The SHA-256 of a CSR's DER, hex: how an approval's reference names the request. */
export const csrSha256 = (csrDer: Uint8Array): string => createHash('sha256').update(csrDer).digest('hex');
