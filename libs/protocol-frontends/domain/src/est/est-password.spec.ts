import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import {
  hashEstPassword,
  scryptOnThreadpool,
  verifyEstBasicCredentials,
  verifyEstPassword,
} from './est-password';

describe('EST Basic credentials (ADR 0058 amendment: the KDF off the event loop, one per attempt)', () => {
  const stored = hashEstPassword('correct horse battery');

  it('regression (review finding 2): 20 password checks at once leave the event loop free, scrypt runs on the threadpool', async () => {
    const delay = monitorEventLoopDelay({ resolution: 5 });
    delay.enable();
    const started = performance.now();
    // When the loop is blocked, this callback runs only after the blocking work.
    const lag = new Promise<number>((resolve) => setImmediate(() => resolve(performance.now() - started)));
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        verifyEstPassword(i === 0 ? 'correct horse battery' : `guess-${i}`, stored),
      ),
    );
    delay.disable();
    expect(results.filter(Boolean)).toHaveLength(1);
    // One synchronous scrypt of these parameters takes about 40 ms; twenty took about 800 ms.
    expect(await lag).toBeLessThan(100);
    expect(delay.max / 1e6).toBeLessThan(200);
  });

  it('regression (review finding 2): runs exactly one KDF with the stored parameters, whether the username is right or wrong, and without a stored password', async () => {
    const kdf = jest.fn(scryptOnThreadpool);
    const expected = { username: 'router', passwordHash: stored };
    const attempts: [
      { username: string; password: string },
      typeof expected | { username: string; passwordHash: null },
    ][] = [
      [{ username: 'router', password: 'correct horse battery' }, expected],
      [{ username: 'nobody', password: 'correct horse battery' }, expected],
      [{ username: 'route', password: 'correct horse battery' }, expected],
      [{ username: 'router-and-a-much-longer-name', password: 'wrong' }, expected],
      [
        { username: 'router', password: 'correct horse battery' },
        { username: 'router', passwordHash: null },
      ],
      [
        { username: 'router', password: 'correct horse battery' },
        { username: 'router', passwordHash: stored.replace('$16384$', '$99999999$') },
      ],
    ];
    const results: boolean[] = [];
    for (const [sent, profile] of attempts) results.push(await verifyEstBasicCredentials(sent, profile, kdf));
    expect(results).toEqual([true, false, false, false, false, false]);
    expect(kdf).toHaveBeenCalledTimes(attempts.length);
    for (const [, , keyLength, options] of kdf.mock.calls) {
      expect(keyLength).toBe(32);
      expect(options).toMatchObject({ N: 16384, r: 8, p: 1 });
    }
  });
});
