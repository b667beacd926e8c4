import { HeardRevocations } from './heard-revocations';

const at = new Date('2026-11-30T10:00:00Z');
const keyCompromise = { reason: 'keyCompromise' as const, revoked_at: at };
const hold = { reason: 'certificateHold' as const, revoked_at: at };
const release = { reason: 'removeFromCRL' as const, revoked_at: at };

describe(HeardRevocations.name, () => {
  it('keeps a heard revocation however long the table lacks it: no clock makes it good again', () => {
    const heard = new HeardRevocations(1024 * 1024, 60_000);
    heard.heard('iss s1', keyCompromise, 'e1', 0);
    for (const now of [60_000, 3_600_000, 86_400_000]) {
      expect(heard.settle('iss s1', undefined, now)).toMatchObject(keyCompromise);
      expect(heard.get('iss s1')).toBeDefined();
    }
  });

  it('is asked about again only after its check time, which each unconfirmed check moves on', () => {
    const heard = new HeardRevocations(1024 * 1024, 60_000);
    heard.heard('iss s1', keyCompromise, 'e1', 0);
    expect(heard.due('iss s1', 59_999)).toBe(false);
    expect(heard.due('iss s1', 60_000)).toBe(true);
    expect(heard.dueKeys(60_000, 10)).toEqual(['iss s1']);
    heard.settle('iss s1', undefined, 60_000);
    expect(heard.due('iss s1', 60_001)).toBe(false);
    expect(heard.due('iss s1', 120_000)).toBe(true);
    expect(heard.due('iss nothing', 120_000)).toBe(false);
  });

  // Each heard reason against each table state: [heard, table row, confirmed].
  it.each([
    ['a revocation', keyCompromise, keyCompromise, true],
    ['a revocation', keyCompromise, undefined, false],
    ['a final revocation the table still holds as the earlier hold', keyCompromise, hold, false],
    ['a hold', hold, hold, true],
    ['a hold', hold, undefined, false],
    ['a released hold', release, undefined, true],
    ['a released hold', release, hold, false],
    ['a release of a final revocation (a no-op)', release, keyCompromise, true],
  ] as const)('%s, the table holding %j: confirmed = %s', (_name, said, row, confirmed) => {
    const heard = new HeardRevocations(1024 * 1024, 60_000);
    heard.heard('iss s1', said, 'e1', 0);
    const answer = heard.settle('iss s1', row, 60_000);
    expect(heard.get('iss s1') === undefined).toBe(confirmed);
    expect(answer).toEqual(confirmed ? row : expect.objectContaining(said));
  });

  it('without a heard entry, the table answers', () => {
    const heard = new HeardRevocations(1024 * 1024, 60_000);
    expect(heard.settle('iss s1', hold, 0)).toBe(hold);
    expect(heard.settle('iss s2', undefined, 0)).toBeUndefined();
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
    heard.settle('iss s1', keyCompromise, 60_000);
    expect(heard.lostEvent).toBeUndefined();
  });
});
