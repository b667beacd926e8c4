import { DigestFactsDto } from '@certlane/contracts';
import { dailyRunId, digestEvent, digestKey, groupDigests } from './digest';
import { renderDigest } from './digest-render';
import { planDeliveries, RoutingRule } from '../routing/routing-rule';

const NOW = new Date('2026-11-25T06:00:00.000Z');
const subject = (id: string, owner: string | null, team: string | null) => ({
  certificate_id: id,
  common_name: `${id}.example.com`,
  owner_id: owner,
  team_id: team,
  environment: 'prod',
});

const FACTS: DigestFactsDto = {
  generated_at: NOW.toISOString(),
  expiring: [
    { ...subject('api', 'alice', 'web'), expires_at: '2026-12-02T06:00:00.000Z', status: 'Expiring' },
    { ...subject('db', 'bob', null), expires_at: '2026-12-20T00:00:00.000Z', status: 'Active' },
    { ...subject('orphan', null, null), expires_at: '2026-12-20T00:00:00.000Z', status: 'Active' },
  ],
  failed_jobs: [
    {
      ...subject('api', 'alice', 'web'),
      job_id: 'job-1',
      job_type: 'Renewal',
      error: 'CA said <no>',
      failed_at: '2026-11-25T01:00:00.000Z',
    },
  ],
  violations: [
    {
      ...subject('shop', null, 'web'),
      violation_id: 'v-1',
      severity: 'Error',
      message: 'issuer not allowed',
      detected_at: '2026-11-20T00:00:00.000Z',
    },
  ],
  approvals: [
    {
      ...subject('new', 'alice', null),
      approval_id: 'ap-1',
      requested_by: 'carol',
      requested_at: '2026-11-24T00:00:00.000Z',
    },
  ],
  totals: { expiring: 3, failed_jobs: 1, violations: 1, approvals: 1 },
};

const CONTACTS = {
  owners: new Map([['alice', ['alice@example.com']]]),
  teams: new Map([['web', ['web@example.com', 'oncall@example.com']]]),
};

describe('groupDigests', () => {
  it('builds one digest per owner and per team, a line in its owner’s and its team’s', () => {
    const digests = groupDigests(FACTS, CONTACTS);
    expect(digests.map((d) => `${d.kind}/${d.subject_id}`)).toEqual(['owner/alice', 'owner/bob', 'team/web']);
    const [alice, bob, web] = digests;
    expect(alice.expiring.map((c) => c.certificate_id)).toEqual(['api']);
    expect(alice.failed_jobs).toHaveLength(1);
    expect(alice.approvals.map((a) => a.approval_id)).toEqual(['ap-1']);
    expect(alice.addresses).toEqual(['alice@example.com']);
    expect(bob.addresses).toEqual([]);
    expect(web.expiring.map((c) => c.certificate_id)).toEqual(['api']);
    expect(web.violations.map((v) => v.violation_id)).toEqual(['v-1']);
    expect(web.addresses).toEqual(['web@example.com', 'oncall@example.com']);
  });

  it('leaves a certificate without owner and team out of every digest', () => {
    const lines = groupDigests(FACTS, CONTACTS).flatMap((d) => d.expiring.map((c) => c.certificate_id));
    expect(lines).not.toContain('orphan');
  });

  it('builds only the digest asked for', () => {
    expect(groupDigests(FACTS, CONTACTS, { team_id: 'web' }).map((d) => d.subject_id)).toEqual(['web']);
    expect(groupDigests(FACTS, CONTACTS, { owner_id: 'bob' }).map((d) => d.subject_id)).toEqual(['bob']);
    expect(groupDigests(FACTS, CONTACTS, { owner_id: 'nobody' })).toEqual([]);
  });
});

describe('renderDigest', () => {
  const [alice] = groupDigests(FACTS, CONTACTS);
  const rendered = renderDigest(alice, 'https://certlane.example.com', NOW);

  it('puts the counts in the subject', () => {
    expect(rendered.subject).toBe(
      '[Certlane digest] owner alice: 1 expiring certificate, 1 failure, 0 violations, 1 approval',
    );
  });

  it('lists each line with its link in the text part', () => {
    expect(rendered.text).toContain('- api.example.com: expires 2026-12-02 (7 days left), prod');
    expect(rendered.text).toContain('https://certlane.example.com/certificates/api');
    expect(rendered.text).toContain('Renewal failed 2026-11-25: CA said <no>');
    expect(rendered.text).toContain('https://certlane.example.com/approvals');
    expect(rendered.text).not.toContain('Open policy violations');
  });

  it('escapes what it quotes in the HTML part and links the certificates', () => {
    expect(rendered.html).toContain(
      '<a href="https://certlane.example.com/certificates/api">api.example.com</a>',
    );
    expect(rendered.html).toContain('CA said &lt;no&gt;');
    expect(rendered.html).not.toContain('<no>');
  });
});

describe('digestEvent', () => {
  const [alice, , web] = groupDigests(FACTS, CONTACTS);
  const rule: RoutingRule = {
    id: 'digests',
    enabled: true,
    event_types: ['digest.daily'],
    min_severity: 'info',
    owner_ids: [],
    team_ids: [],
    environments: [],
    issuer_ids: [],
    notifier_ids: ['mail'],
  };

  it('is keyed by run and subject: one digest per owner or team and day', () => {
    const run = dailyRunId(NOW);
    expect(run).toBe('2026-11-25');
    const event = digestEvent(alice, run, renderDigest(alice, 'https://x', NOW), NOW);
    expect(event.dedup_key).toBe(digestKey('2026-11-25', alice));
    expect(event.dedup_key).toBe('digest.daily:2026-11-25:owner:alice');
    expect(event).toMatchObject({ type: 'digest.daily', owner_id: 'alice', team_id: null });
    expect(event.details).toMatchObject({ expiring: 1, failed_jobs: 1, violations: 0, approvals: 1 });
  });

  it('is routed to the owner’s or the team’s contacts only', () => {
    const ownerPlan = planDeliveries(
      [rule],
      digestEvent(alice, 'r', renderDigest(alice, 'https://x', NOW), NOW),
      CONTACTS,
    );
    expect(ownerPlan).toEqual([
      {
        notifier_id: 'mail',
        recipients: ['alice@example.com'],
        dedup_key: 'digest.daily:r:owner:alice|mail',
      },
    ]);
    const teamPlan = planDeliveries(
      [rule],
      digestEvent(web, 'r', renderDigest(web, 'https://x', NOW), NOW),
      CONTACTS,
    );
    expect(teamPlan[0].recipients).toEqual(['web@example.com', 'oncall@example.com']);
  });
});
