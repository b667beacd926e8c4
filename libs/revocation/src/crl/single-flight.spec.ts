import { SingleFlight } from './single-flight';

function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe(SingleFlight.name, () => {
  it('runs the work of a key once for the callers that ask while it is in flight', async () => {
    const flights = new SingleFlight<string, number>();
    const gate = deferred<number>();
    let runs = 0;
    const work = () => {
      runs++;
      return gate.promise;
    };
    const answers = Promise.all(Array.from({ length: 20 }, () => flights.run('a', work)));
    expect(runs).toBe(1);
    expect(flights.size).toBe(1);
    gate.resolve(7);
    expect(await answers).toEqual(Array(20).fill(7));
    expect(flights.size).toBe(0);
  });

  it('runs other keys on their own', async () => {
    const flights = new SingleFlight<string, string>();
    const answers = await Promise.all([flights.run('a', async () => 'A'), flights.run('b', async () => 'B')]);
    expect(answers).toEqual(['A', 'B']);
  });

  it('shares a failure with its waiters and does not remember it', async () => {
    const flights = new SingleFlight<string, number>();
    const gate = deferred<number>();
    let runs = 0;
    const first = flights.run('a', () => {
      runs++;
      return gate.promise;
    });
    const second = flights.run('a', async () => 0);
    gate.reject(new Error('sign-digest timed out'));
    await expect(first).rejects.toThrow('sign-digest timed out');
    await expect(second).rejects.toThrow('sign-digest timed out');
    expect(runs).toBe(1);
    expect(await flights.run('a', async () => 3)).toBe(3);
  });

  it('starts afresh once a run has settled', async () => {
    const flights = new SingleFlight<string, number>();
    let runs = 0;
    await flights.run('a', async () => ++runs);
    await flights.run('a', async () => ++runs);
    expect(runs).toBe(2);
  });
});
