import { crlIsValid, crlRefreshAt, crlTimes, KeyedDebouncer, nextCrlNumber, Timers } from './crl-schedule';

/** Timers driven by the test: nothing fires until `fire` is called. */
class ManualTimers implements Timers {
  scheduled: { callback: () => void; ms: number; cleared: boolean }[] = [];
  setTimeout(callback: () => void, ms: number): unknown {
    const timer = { callback, ms, cleared: false };
    this.scheduled.push(timer);
    return timer;
  }
  clearTimeout(handle: unknown): void {
    (handle as { cleared: boolean }).cleared = true;
  }
  get live() {
    return this.scheduled.filter((t) => !t.cleared);
  }
  /** Fires every live timer once, in order. */
  fire(): void {
    const due = this.live;
    this.scheduled = [];
    for (const t of due) t.callback();
  }
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('CRL schedule', () => {
  it('refreshes a CRL half-way through its validity', () => {
    const thisUpdate = new Date('2026-01-01T00:00:00Z');
    const nextUpdate = new Date('2026-01-02T00:00:00Z');
    expect(crlRefreshAt(thisUpdate, nextUpdate).toISOString()).toBe('2026-01-01T12:00:00.000Z');
  });

  it('refreshes a CRL the configured lead time before its nextUpdate, never before thisUpdate', () => {
    const thisUpdate = new Date('2026-01-01T00:00:00Z');
    const nextUpdate = new Date('2026-01-02T00:00:00Z');
    expect(crlRefreshAt(thisUpdate, nextUpdate, 3600_000).toISOString()).toBe('2026-01-01T23:00:00.000Z');
    expect(crlRefreshAt(thisUpdate, nextUpdate, 24 * 3600_000 - 2000).toISOString()).toBe(
      '2026-01-01T00:00:02.000Z',
    );
    expect(crlRefreshAt(thisUpdate, nextUpdate, 48 * 3600_000)).toEqual(thisUpdate);
  });

  it('numbers CRLs 1, 2, 3 ... beyond 2^53', () => {
    expect(nextCrlNumber(undefined)).toBe(1n);
    expect(nextCrlNumber(1n)).toBe(2n);
    expect(nextCrlNumber(2n ** 60n)).toBe(2n ** 60n + 1n);
  });

  it("numbers a CRL above the issuer's last reserved number and every stored one (one sequence per issuer)", () => {
    expect(nextCrlNumber(undefined, undefined)).toBe(1n);
    expect(nextCrlNumber(undefined, 5n)).toBe(6n);
    expect(nextCrlNumber(7n, 5n)).toBe(8n);
    expect(nextCrlNumber(5n, 9n)).toBe(10n);
  });

  it('starts a CRL at the whole second and ends it 24 hours later', () => {
    const { thisUpdate, nextUpdate } = crlTimes(Date.parse('2026-01-01T10:00:00.999Z'));
    expect(thisUpdate.toISOString()).toBe('2026-01-01T10:00:00.000Z');
    expect(nextUpdate.toISOString()).toBe('2026-01-02T10:00:00.000Z');
  });

  it('serves a stored CRL until its nextUpdate', () => {
    const next_update = new Date('2026-01-02T00:00:00Z');
    expect(crlIsValid(undefined, 0)).toBe(false);
    expect(crlIsValid({ next_update }, next_update.getTime() - 1)).toBe(true);
    expect(crlIsValid({ next_update }, next_update.getTime())).toBe(false);
  });
});

describe(KeyedDebouncer.name, () => {
  function setup(work: (key: string) => Promise<void> = async () => undefined) {
    const timers = new ManualTimers();
    const runs: string[] = [];
    const errors: unknown[] = [];
    const debouncer = new KeyedDebouncer<string>(
      async (key) => {
        runs.push(key);
        await work(key);
      },
      100,
      (_key, error) => errors.push(error),
      timers,
    );
    return { timers, runs, errors, debouncer };
  }

  it('coalesces the requests of one key made before the delay into one run', async () => {
    const { timers, runs, debouncer } = setup();
    debouncer.request('a');
    debouncer.request('a');
    debouncer.request('b');
    debouncer.request('a');
    expect(timers.live.map((t) => t.ms)).toEqual([100, 100]);
    expect(runs).toEqual([]);
    timers.fire();
    await debouncer.idle();
    expect(runs).toEqual(['a', 'b']);
    expect(debouncer.pending()).toEqual([]);
  });

  it('runs once more after a run when requested during it, never concurrently', async () => {
    let release!: () => void;
    let active = 0;
    let maxActive = 0;
    const { timers, runs, debouncer } = setup(async () => {
      active++;
      maxActive = Math.max(maxActive, active);
      await new Promise<void>((resolve) => (release = resolve));
      active--;
    });
    debouncer.request('a');
    timers.fire();
    await tick();
    expect(runs).toEqual(['a']);
    debouncer.request('a');
    debouncer.request('a');
    expect(timers.live).toEqual([]);
    release();
    await tick();
    expect(timers.live).toHaveLength(1);
    timers.fire();
    await tick();
    release();
    await debouncer.idle();
    expect(runs).toEqual(['a', 'a']);
    expect(maxActive).toBe(1);
  });

  it('reports a failed run and accepts the next request', async () => {
    let fail = true;
    const { timers, runs, errors, debouncer } = setup(async () => {
      if (fail) throw new Error('sign-digest unavailable');
    });
    debouncer.request('a');
    timers.fire();
    await debouncer.idle();
    await tick();
    expect(errors).toHaveLength(1);
    fail = false;
    debouncer.request('a');
    timers.fire();
    await debouncer.idle();
    expect(runs).toEqual(['a', 'a']);
    expect(errors).toHaveLength(1);
  });

  it('cancels what is scheduled when closed and ignores later requests', () => {
    const { timers, debouncer } = setup();
    debouncer.request('a');
    debouncer.close();
    debouncer.request('b');
    expect(timers.live).toEqual([]);
  });
});
