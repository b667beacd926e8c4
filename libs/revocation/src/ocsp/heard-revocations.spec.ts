import { HeardRevocations } from './heard-revocations';

const at = new Date('2026-11-30T10:00:00Z');
const keyCompromise = { reason: 'keyCompromise' as const, revoked_at: at };
const hold = { reason: 'certificateHold' as const, revoked_at: at };
const release = { reason: 'removeFromCRL' as const, revoked_at: at };

describe(HeardRevocations.name, () => {
  it('keeps a heard revocation however long the consumer has not recorded it: no clock makes it good again', () => {
    const heard = new HeardRevocations(1024 * 1024, 60_000);
    heard.heard('iss s1', keyCompromise, 'e1', 0);
    for (const now of [60_000, 3_600_000, 86_400_000]) {
      expect(heard.settle('iss s1', 'e1', false, undefined, now)).toMatchObject(keyCompromise);
      expect(heard.get('iss s1')).toBeDefined();
    }
  });

  it('is asked about again only after its check time, which each unconfirmed check moves on', () => {
    const heard = new HeardRevocations(1024 * 1024, 60_000);
    heard.heard('iss s1', keyCompromise, 'e1', 0);
    expect(heard.due('iss s1', 59_999)).toBe(false);
    expect(heard.due('iss s1', 60_000)).toBe(true);
    expect(heard.dueKeys(60_000, 10)).toEqual(['iss s1']);
    heard.settle('iss s1', 'e1', false, undefined, 60_000);
    expect(heard.due('iss s1', 60_001)).toBe(false);
    expect(heard.due('iss s1', 120_000)).toBe(true);
    expect(heard.due('iss nothing', 120_000)).toBe(false);
  });

  // Each heard reason against each table state, the event recorded or not: the table never decides.
  it.each([
    ['a revocation', keyCompromise],
    ['a hold', hold],
    ['a released hold', release],
  ] as const)(
    '%s: let go exactly when the consumer recorded its event, whatever the table holds',
    (_name, said) => {
      for (const row of [undefined, keyCompromise, hold]) {
        const heard = new HeardRevocations(1024 * 1024, 60_000);
        heard.heard('iss s1', said, 'e1', 0);
        expect(heard.settle('iss s1', 'e1', false, row, 60_000)).toEqual(expect.objectContaining(said));
        expect(heard.get('iss s1')).toBeDefined();
        expect(heard.settle('iss s1', 'e1', true, row, 120_000)).toBe(row);
        expect(heard.get('iss s1')).toBeUndefined();
      }
    },
  );

  it('a hold heard after a release is not let go by the row of the hold before them (hold, release, hold)', () => {
    const heard = new HeardRevocations(1024 * 1024, 60_000);
    heard.heard('iss s1', hold, 'e1', 0);
    heard.heard('iss s1', release, 'e2', 0);
    heard.heard('iss s1', hold, 'e3', 0);
    // The consumer applied e1 only: its hold row is there, e3 is not recorded.
    expect(heard.settle('iss s1', 'e3', false, hold, 60_000)).toMatchObject({ ...hold, eventId: 'e3' });
    expect(heard.get('iss s1')?.eventId).toBe('e3');
  });

  it('keeps an entry replaced by a newer event while the older one was being checked', () => {
    const heard = new HeardRevocations(1024 * 1024, 60_000);
    heard.heard('iss s1', hold, 'e1', 0);
    heard.heard('iss s1', keyCompromise, 'e2', 1);
    expect(heard.settle('iss s1', 'e1', true, hold, 60_000)).toMatchObject({
      ...keyCompromise,
      eventId: 'e2',
    });
    expect(heard.get('iss s1')?.eventId).toBe('e2');
  });

  it('without a heard entry, the table answers', () => {
    const heard = new HeardRevocations(1024 * 1024, 60_000);
    expect(heard.settle('iss s1', 'e1', false, hold, 0)).toBe(hold);
    expect(heard.settle('iss s2', 'e2', true, undefined, 0)).toBeUndefined();
  });

  it('past its bound drops the oldest and names the newest event it dropped before the table held it', () => {
    const heard = new HeardRevocations(2_000, 60_000);
    for (let i = 1; i <= 20; i++) heard.heard(`iss s${i}`, keyCompromise, `e${i}`, 0);
    expect(heard.size).toBeLessThan(20);
    expect(heard.get('iss s1')).toBeUndefined();
    expect(heard.get('iss s20')).toBeDefined();
    const lost = heard.lostEvent!;
    expect(lost).toBe(`e${20 - heard.size}`);
    heard.caughtUp('e-other');
    expect(heard.lostEvent).toBe(lost);
    heard.caughtUp(lost);
    expect(heard.lostEvent).toBeUndefined();
  });

  it('names nothing lost when what it dropped had been confirmed', () => {
    const heard = new HeardRevocations(2_000, 60_000);
    heard.heard('iss s1', keyCompromise, 'e1', 0);
    heard.settle('iss s1', 'e1', true, keyCompromise, 60_000);
    expect(heard.lostEvent).toBeUndefined();
  });
});
