import { retryWhileDatabaseUnreachable } from './retry-while-unreachable';

const lost = () => Object.assign(new Error('Connection terminated unexpectedly'), {});
const refused = () => Object.assign(new Error('duplicate key value'), { code: '23505' });

describe('retryWhileDatabaseUnreachable', () => {
  it('runs the work again while the database is unreachable, then returns its result', async () => {
    let calls = 0;
    const delays: number[] = [];
    const result = await retryWhileDatabaseUnreachable(
      async () => {
        calls += 1;
        if (calls < 3) throw lost();
        return 'done';
      },
      { giveUpAfterMs: 10_000, firstDelayMs: 1, onRetry: (_error, delay) => delays.push(delay) },
    );
    expect(result).toBe('done');
    expect(calls).toBe(3);
    expect(delays).toEqual([1, 2]);
  });

  it('throws at once an error the database answered', async () => {
    let calls = 0;
    await expect(
      retryWhileDatabaseUnreachable(
        async () => {
          calls += 1;
          throw refused();
        },
        { giveUpAfterMs: 10_000, firstDelayMs: 1 },
      ),
    ).rejects.toThrow('duplicate key value');
    expect(calls).toBe(1);
  });

  it('gives up with the last error once the next wait would pass the deadline', async () => {
    let calls = 0;
    await expect(
      retryWhileDatabaseUnreachable(
        async () => {
          calls += 1;
          throw lost();
        },
        { giveUpAfterMs: 5, firstDelayMs: 2, maxDelayMs: 2 },
      ),
    ).rejects.toThrow('Connection terminated');
    expect(calls).toBeGreaterThanOrEqual(1);
    expect(calls).toBeLessThanOrEqual(4);
  });
});
