import { AcmeProblem } from '../problems/acme-problem';

/** RFC 8555 7.1.6: the states of an authorization. */
export const AUTHORIZATION_STATUSES = [
  'pending',
  'valid',
  'invalid',
  'deactivated',
  'expired',
  'revoked',
] as const;
export type AuthorizationStatus = (typeof AUTHORIZATION_STATUSES)[number];

export type AuthorizationEvent =
  /** One of its challenges was validated. */
  | { kind: 'challenge-valid' }
  /** A challenge failed for good (RFC 8555 7.1.6: the authorization becomes invalid). */
  | { kind: 'challenge-invalid' }
  /** The client deactivated it (RFC 8555 7.5.2). */
  | { kind: 'deactivate' }
  /** Its `expires` passed. */
  | { kind: 'expire' }
  /** The server (an operator) revoked it. */
  | { kind: 'revoke' };

export type AuthorizationTransition =
  { ok: true; to: AuthorizationStatus } | { ok: false; problem: AcmeProblem };

/** The authorization state machine: pure, total over every (status, event) pair. */
export function nextAuthorizationStatus(
  from: AuthorizationStatus,
  event: AuthorizationEvent,
): AuthorizationTransition {
  const refuse = (why: string): AuthorizationTransition => ({
    ok: false,
    problem: new AcmeProblem('malformed', `cannot ${event.kind} an authorization that is ${from}: ${why}`),
  });
  switch (event.kind) {
    case 'challenge-valid':
      return from === 'pending' ? { ok: true, to: 'valid' } : refuse('it is not pending');
    case 'challenge-invalid':
      return from === 'pending' ? { ok: true, to: 'invalid' } : refuse('it is not pending');
    case 'deactivate':
      // RFC 8555 7.5.2: the client may deactivate a pending or valid authorization.
      return from === 'pending' || from === 'valid'
        ? { ok: true, to: 'deactivated' }
        : refuse('only a pending or valid authorization is deactivated');
    case 'expire':
      return from === 'pending' || from === 'valid'
        ? { ok: true, to: 'expired' }
        : refuse('it has already ended');
    case 'revoke':
      return from === 'valid' ? { ok: true, to: 'revoked' } : refuse('only a valid authorization is revoked');
  }
}
