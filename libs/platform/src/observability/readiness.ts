export type ReadinessCheck = () => Promise<boolean>;

export interface ReadinessReport {
  ready: boolean;
  checks: Record<string, 'up' | 'down'>;
}

/** Named dependency checks behind GET /ready: the process is ready only when every one passes. */
export class ReadinessRegistry {
  private readonly checks = new Map<string, ReadinessCheck>();

  add(name: string, check: ReadinessCheck): void {
    this.checks.set(name, check);
  }

  async evaluate(timeoutMs = 2000): Promise<ReadinessReport> {
    const entries = await Promise.all(
      [...this.checks].map(
        async ([name, check]) => [name, (await withTimeout(check, timeoutMs)) ? 'up' : 'down'] as const,
      ),
    );
    return { ready: entries.every(([, state]) => state === 'up'), checks: Object.fromEntries(entries) };
  }
}

async function withTimeout(check: ReadinessCheck, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      check().catch(() => false),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
