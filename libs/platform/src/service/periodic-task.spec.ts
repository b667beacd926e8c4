import { PeriodicTask } from './periodic-task';

describe('PeriodicTask', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('runs every interval, at start only when asked, never two runs at once, and stop waits', async () => {
    let runs = 0;
    let finish: () => void = () => undefined;
    const task = new PeriodicTask(() => {
      runs += 1;
      return new Promise<void>((resolve) => (finish = resolve));
    }, 1000);

    task.start({ runNow: true });
    expect(runs).toBe(1);
    jest.advanceTimersByTime(3000); // the first run is still under way: ticks are skipped
    expect(runs).toBe(1);

    finish();
    await Promise.resolve();
    await Promise.resolve();
    jest.advanceTimersByTime(1000);
    expect(runs).toBe(2);

    let stopped = false;
    const stopping = task.stop().then(() => (stopped = true));
    await Promise.resolve();
    expect(stopped).toBe(false); // waits for the run under way
    finish();
    await stopping;
    jest.advanceTimersByTime(5000);
    expect(runs).toBe(2);
  });

  it('does not run at start by default', () => {
    let runs = 0;
    const task = new PeriodicTask(async () => void (runs += 1), 1000);
    task.start();
    expect(runs).toBe(0);
    jest.advanceTimersByTime(1000);
    expect(runs).toBe(1);
    void task.stop();
  });
});
