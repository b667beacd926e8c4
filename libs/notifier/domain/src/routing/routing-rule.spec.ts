import { NotificationEvent } from '../events/notification-event';
import { Contacts, planDeliveries, RoutingRule, ruleMatches } from './routing-rule';

const event: NotificationEvent = {
  type: 'certificate.expiring',
  severity: 'warning',
  dedup_key: 'certificate.expiring:cert-1:2026-12-08T00:00:00.000Z:14',
  certificate_id: 'cert-1',
  owner_id: 'alice',
  team_id: 'payments',
  environment: 'production',
  issuer_id: 'iss-local',
  title: 'api.example.com expires in 14 days',
  details: {},
  occurred_at: '2026-11-24T00:00:00.000Z',
};

const rule = (overrides: Partial<RoutingRule> = {}): RoutingRule => ({
  id: 'r1',
  enabled: true,
  event_types: [],
  min_severity: 'info',
  owner_ids: [],
  team_ids: [],
  environments: [],
  issuer_ids: [],
  notifier_ids: ['slack-ops'],
  ...overrides,
});

const noContacts: Contacts = { owners: new Map(), teams: new Map() };

describe('ruleMatches', () => {
  it('a rule with empty lists matches any event', () => {
    expect(ruleMatches(rule(), event)).toBe(true);
  });

  it('a disabled rule matches nothing', () => {
    expect(ruleMatches(rule({ enabled: false }), event)).toBe(false);
  });

  it.each([
    ['event type', { event_types: ['certificate.revoked'] }, { event_types: ['certificate.expiring'] }],
    ['owner', { owner_ids: ['bob'] }, { owner_ids: ['bob', 'alice'] }],
    ['team', { team_ids: ['identity'] }, { team_ids: ['payments'] }],
    ['environment', { environments: ['staging'] }, { environments: ['production'] }],
    ['issuer', { issuer_ids: ['iss-acme'] }, { issuer_ids: ['iss-local'] }],
    ['severity', { min_severity: 'critical' }, { min_severity: 'warning' }],
  ] as [string, Partial<RoutingRule>, Partial<RoutingRule>][])('selects by %s', (_attribute, miss, hit) => {
    expect(ruleMatches(rule(miss), event)).toBe(false);
    expect(ruleMatches(rule(hit), event)).toBe(true);
  });

  it('an event without an attribute does not match a rule naming values for it', () => {
    expect(ruleMatches(rule({ issuer_ids: ['iss-local'] }), { ...event, issuer_id: null })).toBe(false);
    expect(ruleMatches(rule(), { ...event, issuer_id: null })).toBe(true);
  });
});

describe('planDeliveries', () => {
  it('delivers once per notifier however many rules name it', () => {
    const plans = planDeliveries(
      [
        rule({ id: 'a', notifier_ids: ['slack-ops', 'email-sec'] }),
        rule({ id: 'b', notifier_ids: ['slack-ops'] }),
      ],
      event,
      noContacts,
    );
    expect(plans.map((plan) => plan.notifier_id)).toEqual(['email-sec', 'slack-ops']);
    expect(new Set(plans.map((plan) => plan.dedup_key)).size).toBe(2);
  });

  it('plans nothing when no rule matches', () => {
    expect(planDeliveries([rule({ environments: ['staging'] })], event, noContacts)).toEqual([]);
  });

  it("adds the owner's and team's contact addresses once each", () => {
    const contacts: Contacts = {
      owners: new Map([['alice', ['alice@example.com']]]),
      teams: new Map([['payments', ['Alice@Example.com', 'payments@example.com']]]),
    };
    const [plan] = planDeliveries([rule()], event, contacts);
    expect(plan.recipients).toEqual(['alice@example.com', 'payments@example.com']);
  });

  it('the same event planned twice yields the same dedup keys', () => {
    const first = planDeliveries([rule()], event, noContacts);
    const second = planDeliveries(
      [rule()],
      { ...event, occurred_at: '2026-11-25T00:00:00.000Z' },
      noContacts,
    );
    expect(second.map((plan) => plan.dedup_key)).toEqual(first.map((plan) => plan.dedup_key));
  });
});
