import { AcmeProblem } from '../problems/acme-problem';

/** RFC 8555 7.1.6: the states of a challenge. */
export const CHALLENGE_STATUSES = ['pending', 'processing', 'valid', 'invalid'] as const;
export type ChallengeStatus = (typeof CHALLENGE_STATUSES)[number];

export const CHALLENGE_TYPES = ['http-01', 'dns-01', 'tls-alpn-01', 'dns-persist-01'] as const;
export type ChallengeType = (typeof CHALLENGE_TYPES)[number];

export type ChallengeEvent =
  /** The client posted `{}` to the challenge URL: it is ready to be validated (RFC 8555 7.5.1). */
  | { kind: 'respond' }
  /** The validator saw the expected key authorization. */
  | { kind: 'validated' }
  /** The validator gave up (after its retries). */
  | { kind: 'validation-failed' };

/** `changed` is false when the event is accepted but leaves the challenge as it is. */
export type ChallengeTransition =
  { ok: true; to: ChallengeStatus; changed: boolean } | { ok: false; problem: AcmeProblem };

/** The challenge state machine: pure, total over every (status, event) pair. */
export function nextChallengeStatus(from: ChallengeStatus, event: ChallengeEvent): ChallengeTransition {
  const refuse = (why: string): ChallengeTransition => ({
    ok: false,
    problem: new AcmeProblem('malformed', `cannot ${event.kind} for a challenge that is ${from}: ${why}`),
  });
  switch (event.kind) {
    case 'respond':
      // Clients repeat the POST (retries, polling by POST); after the first it changes nothing.
      return from === 'pending'
        ? { ok: true, to: 'processing', changed: true }
        : { ok: true, to: from, changed: false };
    case 'validated':
    case 'validation-failed':
      return from === 'processing'
        ? { ok: true, to: event.kind === 'validated' ? 'valid' : 'invalid', changed: true }
        : refuse('it is not being validated');
  }
}
