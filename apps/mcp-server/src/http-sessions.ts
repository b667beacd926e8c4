import { createHash, timingSafeEqual } from 'node:crypto';

/** What a session holds besides its id: closing it ends the MCP session and its API connections. */
export interface SessionHandle {
  close(): Promise<void>;
}

interface Entry<S extends SessionHandle> {
  session: S;
  keyHash: Buffer;
  timer: NodeJS.Timeout;
}

export const keyHash = (key: string): Buffer => createHash('sha256').update(key).digest();

/**
 * The open MCP sessions of the HTTP transport: at most `max` (counting the ones being opened),
 * each bound to the SHA-256 of the API key that opened it, closed after `idleMs` without a
 * request.
 */
export class HttpSessions<S extends SessionHandle> {
  private readonly open = new Map<string, Entry<S>>();
  private opening = 0;

  constructor(
    private readonly max: number,
    private readonly idleMs: number,
  ) {}

  get size(): number {
    return this.open.size;
  }

  /** Reserves a place for a session about to open; false when the bound is reached. */
  reserve(): boolean {
    if (this.open.size + this.opening >= this.max) return false;
    this.opening += 1;
    return true;
  }

  /** Gives back a reservation (the opening failed, or `add` took it). */
  release(): void {
    this.opening = Math.max(0, this.opening - 1);
  }

  add(id: string, session: S, key: string): void {
    this.release();
    this.open.set(id, { session, keyHash: keyHash(key), timer: this.idleTimer(id) });
  }

  /** The session `id` if `key` opened it; `forbidden` if another key did; undefined if none. */
  find(id: string, key: string): S | 'forbidden' | undefined {
    const entry = this.open.get(id);
    if (!entry) return undefined;
    if (!timingSafeEqual(entry.keyHash, keyHash(key))) return 'forbidden';
    entry.timer.refresh();
    return entry.session;
  }

  /** Forgets `id` (its transport closed); the caller has closed it or is closing it. */
  remove(id: string): void {
    const entry = this.open.get(id);
    if (!entry) return;
    clearTimeout(entry.timer);
    this.open.delete(id);
  }

  async closeAll(): Promise<void> {
    const sessions = [...this.open.values()].map((entry) => entry.session);
    for (const id of [...this.open.keys()]) this.remove(id);
    await Promise.all(sessions.map((session) => session.close()));
  }

  private idleTimer(id: string): NodeJS.Timeout {
    const timer = setTimeout(() => {
      const entry = this.open.get(id);
      this.remove(id);
      void entry?.session.close();
    }, this.idleMs);
    timer.unref();
    return timer;
  }
}
