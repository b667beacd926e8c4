import { anchorKey, ListAnchorCache, seekFromAnchors, usesAnchors } from './list-anchors';

describe('list anchors', () => {
  // anchors[j] is the id at position (j+1)*10 - 1 of the list (spacing 10).
  const anchors = ['id-09', 'id-19', 'id-29'];

  it.each([
    [0, { offset: 0 }],
    [9, { offset: 9 }],
    [10, { afterId: 'id-09', offset: 0 }],
    [15, { afterId: 'id-09', offset: 5 }],
    [29, { afterId: 'id-19', offset: 9 }],
    [30, { afterId: 'id-29', offset: 0 }],
    // Past the last anchor: seek from it and skip the rest (the page is short or empty, as OFFSET).
    [57, { afterId: 'id-29', offset: 27 }],
  ])('seeks offset %d from the nearest anchor before it', (offset, seek) => {
    expect(seekFromAnchors(offset, anchors, 10)).toEqual(seek);
  });

  it('skips the same number of rows as OFFSET: anchor position + 1 + remaining offset', () => {
    const list = Array.from({ length: 95 }, (_, i) => `id-${String(i).padStart(2, '0')}`);
    const built = list.filter((_, i) => (i + 1) % 10 === 0);
    for (let offset = 0; offset < 120; offset++) {
      const seek = seekFromAnchors(offset, built, 10);
      const start = seek.afterId === undefined ? 0 : list.indexOf(seek.afterId) + 1;
      expect(list.slice(start + seek.offset, start + seek.offset + 7)).toEqual(
        list.slice(offset, offset + 7),
      );
      expect(seek.offset).toBeLessThan(offset < 100 ? 10 : 30);
    }
  });

  it('uses anchors from the first anchor on', () => {
    expect(usesAnchors(999, 1000)).toBe(false);
    expect(usesAnchors(1000, 1000)).toBe(true);
  });

  it('keys a filter by its values whatever the field order', () => {
    expect(anchorKey({ status: 'Active', team_id: 't1' })).toBe(
      anchorKey({ team_id: 't1', status: 'Active' }),
    );
    expect(anchorKey({ status: 'Active' })).not.toBe(anchorKey({ environment: 'Active' }));
    expect(anchorKey({})).not.toBe(anchorKey({ owner_id: '' }));
  });

  describe(ListAnchorCache.name, () => {
    let now = 0;
    let builds = 0;
    const build = (result: string[] = ['a']) => {
      builds += 1;
      return Promise.resolve(result);
    };
    beforeEach(() => {
      now = 1_000;
      builds = 0;
    });
    const cache = () => new ListAnchorCache(() => now, 10_000, 2);

    it('shares one build among concurrent callers and serves it until the TTL', async () => {
      const anchorsOf = cache();
      let release!: (value: string[]) => void;
      const slow = () => {
        builds += 1;
        return new Promise<string[]>((resolve) => (release = resolve));
      };
      const first = anchorsOf.anchors('k', 5, slow);
      const second = anchorsOf.anchors('k', 5, slow);
      release(['x']);
      expect(await first).toEqual(['x']);
      expect(await second).toEqual(['x']);
      now += 9_999;
      expect(await anchorsOf.anchors('k', 5, () => build())).toEqual(['x']);
      expect(builds).toBe(1);
    });

    it('serves expired anchors while one background build replaces them', async () => {
      const anchorsOf = cache();
      await anchorsOf.anchors('k', 5, () => build(['x']));
      now += 10_000;
      let release!: (value: string[]) => void;
      const slow = () => {
        builds += 1;
        return new Promise<string[]>((resolve) => (release = resolve));
      };
      expect(await anchorsOf.anchors('k', 5, slow)).toEqual(['x']);
      expect(await anchorsOf.anchors('k', 5, slow)).toEqual(['x']);
      expect(builds).toBe(2);
      release(['y']);
      await Promise.resolve();
      expect(await anchorsOf.anchors('k', 5, () => build(['z']))).toEqual(['y']);
      expect(builds).toBe(2);
    });

    it('drops a background refresh that a write overtook', async () => {
      const anchorsOf = cache();
      await anchorsOf.anchors('k', 5, () => build(['x']));
      now += 10_000;
      let release!: (value: string[]) => void;
      expect(
        await anchorsOf.anchors('k', 5, () => new Promise<string[]>((resolve) => (release = resolve))),
      ).toEqual(['x']);
      anchorsOf.invalidate();
      release(['stale']);
      await Promise.resolve();
      expect(anchorsOf.size).toBe(0);
      expect(await anchorsOf.anchors('k', 5, () => build(['fresh']))).toEqual(['fresh']);
    });

    it('lets a caller peek at built anchors without building, and tells it when the guess holds', async () => {
      const anchorsOf = cache();
      expect(anchorsOf.peek('k')).toBeUndefined();
      let release!: (value: string[]) => void;
      const pending = anchorsOf.anchors(
        'k',
        5,
        () => new Promise<string[]>((resolve) => (release = resolve)),
      );
      // A build in flight is not a guess.
      expect(anchorsOf.peek('k')).toBeUndefined();
      release(['x']);
      const built = await pending;
      const guess = anchorsOf.peek('k');
      expect(guess).toBe(built);
      // The same total: the same array, so the guess holds; even once expired (served while refreshed).
      expect(await anchorsOf.anchors('k', 5, () => build(['y']))).toBe(guess);
      now += 10_000;
      expect(await anchorsOf.anchors('k', 5, () => build(['y']))).toBe(guess);
      // Another total: other anchors, so the guess does not hold.
      expect(await anchorsOf.anchors('k', 6, () => build(['z']))).not.toBe(guess);
      expect(anchorsOf.peek('other')).toBeUndefined();
    });

    it('rebuilds when the total changed (another replica wrote)', async () => {
      const anchorsOf = cache();
      await anchorsOf.anchors('k', 5, () => build(['x']));
      expect(await anchorsOf.anchors('k', 6, () => build(['y']))).toEqual(['y']);
      expect(builds).toBe(2);
    });

    it('drops everything on invalidate(), a build in flight too', async () => {
      const anchorsOf = cache();
      await anchorsOf.anchors('k', 5, () => build());
      anchorsOf.invalidate();
      expect(anchorsOf.size).toBe(0);
      let release!: (value: string[]) => void;
      const pending = anchorsOf.anchors(
        'k',
        5,
        () => new Promise<string[]>((resolve) => (release = resolve)),
      );
      anchorsOf.invalidate();
      release(['stale']);
      expect(await pending).toEqual(['stale']);
      expect(await anchorsOf.anchors('k', 5, () => build(['fresh']))).toEqual(['fresh']);
    });

    it('forgets a failed build', async () => {
      const anchorsOf = cache();
      await expect(anchorsOf.anchors('k', 5, () => Promise.reject(new Error('down')))).rejects.toThrow(
        'down',
      );
      expect(anchorsOf.size).toBe(0);
      expect(await anchorsOf.anchors('k', 5, () => build(['x']))).toEqual(['x']);
    });

    it('keeps at most maxEntries filters, dropping the oldest', async () => {
      const anchorsOf = cache();
      await anchorsOf.anchors('a', 1, () => build());
      await anchorsOf.anchors('b', 1, () => build());
      await anchorsOf.anchors('c', 1, () => build());
      expect(anchorsOf.size).toBe(2);
      await anchorsOf.anchors('b', 1, () => build());
      expect(builds).toBe(3);
      await anchorsOf.anchors('a', 1, () => build());
      expect(builds).toBe(4);
    });
  });
});
