import {
  DigestApproval,
  DigestExpiringCertificate,
  DigestFactsDto,
  DigestFailedJob,
  DigestSubject,
  DigestViolation,
} from '@certlane/contracts';
import { NotificationEvent } from '../events/notification-event';
import { Contacts } from '../routing/routing-rule';

export type DigestKind = 'owner' | 'team';

/** One owner's or team's share of the day's facts. */
export interface Digest {
  kind: DigestKind;
  subject_id: string;
  addresses: string[];
  expiring: DigestExpiringCertificate[];
  failed_jobs: DigestFailedJob[];
  violations: DigestViolation[];
  approvals: DigestApproval[];
}

export const digestCounts = (digest: Digest) => ({
  expiring: digest.expiring.length,
  failed_jobs: digest.failed_jobs.length,
  violations: digest.violations.length,
  approvals: digest.approvals.length,
});

/** Which digests to build: all, or one owner's or team's. */
export interface DigestFilter {
  owner_id?: string;
  team_id?: string;
}

const SECTIONS = ['expiring', 'failed_jobs', 'violations', 'approvals'] as const;

/**
 * Splits the facts into one digest per owner and per team (issue 22: "an email per owner/team"):
 * a line goes to its certificate's owner's digest and to its team's, so a team sees everything of
 * its certificates and an owner what is theirs. Digests without a line are not built; ones whose
 * subject has no contact addresses are built (the preview shows who would get nothing) with
 * `addresses` empty. Ordered owners first, then by id, for a stable answer.
 */
export function groupDigests(facts: DigestFactsDto, contacts: Contacts, filter: DigestFilter = {}): Digest[] {
  const digests = new Map<string, Digest>();
  const digestOf = (kind: DigestKind, subjectId: string): Digest => {
    const key = `${kind}/${subjectId}`;
    let digest = digests.get(key);
    if (!digest) {
      const addresses = (kind === 'owner' ? contacts.owners : contacts.teams).get(subjectId) ?? [];
      digest = {
        kind,
        subject_id: subjectId,
        addresses,
        expiring: [],
        failed_jobs: [],
        violations: [],
        approvals: [],
      };
      digests.set(key, digest);
    }
    return digest;
  };
  const wanted = (kind: DigestKind, subjectId: string): boolean => {
    if (filter.owner_id === undefined && filter.team_id === undefined) return true;
    return kind === 'owner' ? filter.owner_id === subjectId : filter.team_id === subjectId;
  };
  for (const section of SECTIONS) {
    for (const line of facts[section] as DigestSubject[]) {
      if (line.owner_id && wanted('owner', line.owner_id))
        (digestOf('owner', line.owner_id)[section] as DigestSubject[]).push(line);
      if (line.team_id && wanted('team', line.team_id))
        (digestOf('team', line.team_id)[section] as DigestSubject[]).push(line);
    }
  }
  return [...digests.values()].sort(
    (a, b) => a.kind.localeCompare(b.kind) || a.subject_id.localeCompare(b.subject_id),
  );
}

/**
 * The dedup key of one digest: the run (the UTC day for the daily loop, `manual-<id>` for an
 * on-demand send) and the subject, so each owner and team gets one digest per day however many
 * replicas or restarts run the loop.
 */
export const digestKey = (runId: string, digest: Pick<Digest, 'kind' | 'subject_id'>): string =>
  `digest.daily:${runId}:${digest.kind}:${digest.subject_id}`;

/** The daily run's id: the UTC calendar day. */
export const dailyRunId = (now: Date): string => now.toISOString().slice(0, 10);

/**
 * A digest as a notification event (type `digest.daily`, severity info): routing rules choose
 * its notifiers like any event's, with the owner (or team) as routing attribute, so the email
 * notifier adds that owner's (or team's) contacts; `body` carries the rendered message.
 */
export function digestEvent(
  digest: Digest,
  runId: string,
  body: { subject: string; text: string; html: string },
  now: Date,
): NotificationEvent {
  return {
    type: 'digest.daily',
    severity: 'info',
    dedup_key: digestKey(runId, digest),
    certificate_id: null,
    owner_id: digest.kind === 'owner' ? digest.subject_id : null,
    team_id: digest.kind === 'team' ? digest.subject_id : null,
    environment: null,
    issuer_id: null,
    title: body.subject,
    details: { run_id: runId, kind: digest.kind, subject_id: digest.subject_id, ...digestCounts(digest) },
    occurred_at: now.toISOString(),
    body,
  };
}
