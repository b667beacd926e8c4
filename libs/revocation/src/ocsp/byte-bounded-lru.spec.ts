import { ByteBoundedLru } from './byte-bounded-lru';

describe(ByteBoundedLru.name, () => {
  it('never holds more than its byte bound: the least recently stored go first', () => {
    const evicted: string[] = [];
    const lru = new ByteBoundedLru<string, number>(100, (key) => evicted.push(key));
    lru.set('a', 1, 40);
    lru.set('b', 2, 40);
    lru.set('c', 3, 40);
    expect(lru.bytes).toBe(80);
    expect(lru.size).toBe(2);
    expect(lru.peek('a')).toBeUndefined();
    expect(evicted).toEqual(['a']);
  });

  it('keeps what was read recently and evicts the least recently used instead', () => {
    const lru = new ByteBoundedLru<string, number>(100);
    lru.set('a', 1, 40);
    lru.set('b', 2, 40);
    expect(lru.get('a')).toBe(1);
    lru.set('c', 3, 40);
    expect([...lru]).toEqual([
      ['a', 1],
      ['c', 3],
    ]);
  });

  it('does not count a peek as a use', () => {
    const lru = new ByteBoundedLru<string, number>(100);
    lru.set('a', 1, 40);
    lru.set('b', 2, 40);
    expect(lru.peek('a')).toBe(1);
    lru.set('c', 3, 40);
    expect(lru.peek('a')).toBeUndefined();
  });

  it('replaces an entry with its new size and refuses one larger than the whole bound', () => {
    const lru = new ByteBoundedLru<string, number>(100);
    lru.set('a', 1, 40);
    lru.set('a', 2, 60);
    expect(lru.bytes).toBe(60);
    expect(lru.set('huge', 3, 101)).toBe(false);
    expect(lru.peek('huge')).toBeUndefined();
    expect(lru.bytes).toBe(60);
    expect(lru.set('a', 4, 101)).toBe(false);
    expect(lru.size).toBe(0);
    expect(lru.bytes).toBe(0);
  });

  it('gives back its bytes on delete without calling onEvict', () => {
    const onEvict = jest.fn();
    const lru = new ByteBoundedLru<string, number>(100, onEvict);
    lru.set('a', 1, 40);
    expect(lru.delete('a')).toBe(1);
    expect(lru.delete('a')).toBeUndefined();
    expect(lru.bytes).toBe(0);
    expect(onEvict).not.toHaveBeenCalled();
  });
});
