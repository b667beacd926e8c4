/**
 * A background loop of a service: runs `work` every `intervalMs` (optionally once at start),
 * never two runs at once (a tick during a run is skipped), and `stop` waits for the run under way.
 * The timer does not keep the process alive. `work` reports its own failures.
 */
export class PeriodicTask {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;

  constructor(
    private readonly work: () => Promise<void>,
    private readonly intervalMs: number,
  ) {}

  start(options: { runNow?: boolean } = {}): void {
    if (options.runNow) this.tick();
    this.timer = setInterval(() => this.tick(), this.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  private tick(): void {
    if (this.running) return;
    this.running = this.work().finally(() => (this.running = undefined));
  }
}
