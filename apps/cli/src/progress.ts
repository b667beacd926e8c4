/**
 * A one-line progress report on stderr while a long operation runs, only when stderr is a
 * terminal: piped or redirected output stays exactly the data.
 */
export class Progress {
  private shown = false;
  private lastDraw = 0;

  constructor(
    private readonly stream: NodeJS.WriteStream & { isTTY?: boolean },
    private readonly enabled = Boolean(stream.isTTY),
  ) {}

  /** Redraws at most ten times a second, unless `force`. */
  update(text: string, force = false): void {
    if (!this.enabled) return;
    const now = Date.now();
    if (!force && now - this.lastDraw < 100) return;
    this.lastDraw = now;
    const width = (this.stream.columns ?? 80) - 1;
    this.stream.write(`\r\x1b[2K${text.slice(0, width)}`);
    this.shown = true;
  }

  /** Clears the line, leaving `finalText` (if any) on it. */
  done(finalText?: string): void {
    if (!this.enabled) return;
    if (this.shown) this.stream.write('\r\x1b[2K');
    if (finalText) this.stream.write(`${finalText}\n`);
    this.shown = false;
  }
}

/** `[#####.....] 512/1000` */
export function bar(done: number, total: number, width = 24): string {
  const share = total > 0 ? Math.min(1, done / total) : 1;
  const filled = Math.round(share * width);
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total}`;
}
