/**
 * Shares one read between the concurrent callers of the same key, the way GroupCommit shares a
 * transaction between writers: while a read of a key is running, callers of that key wait for the
 * next read, which starts when the running one ends and answers all of them. Every caller
 * therefore gets a result read by a query that started after it asked (nothing older than a
 * read of its own would give: a CA retired before the request arrived is seen as retired), and
 * under load a key is read once per round trip instead of once per caller. A failed read fails
 * the callers that were waiting for it, and only them.
 *
 * The result is shared between callers: they must not modify it.
 */
export class ReadCoalescer<K, V> {
  private readonly keys = new Map<K, KeyState<V>>();

  constructor(private readonly read: (key: K) => Promise<V>) {}

  get(key: K): Promise<V> {
    const state = this.keys.get(key);
    if (!state) {
      const started: KeyState<V> = { next: undefined };
      this.keys.set(key, started);
      return this.run(key, started);
    }
    state.next ??= deferred<V>();
    return state.next.promise;
  }

  /** Reads `key` now; when done, starts the read the callers who came meanwhile wait for. */
  private run(key: K, state: KeyState<V>): Promise<V> {
    let result: Promise<V>;
    try {
      result = this.read(key);
    } catch (error) {
      result = Promise.reject(error);
    }
    const settled = () => {
      const waiting = state.next;
      if (!waiting) {
        this.keys.delete(key);
        return;
      }
      state.next = undefined;
      this.run(key, state).then(waiting.resolve, waiting.reject);
    };
    result.then(settled, settled);
    return result;
  }
}

interface KeyState<V> {
  /** Callers that arrived while a read was running. */
  next: Deferred<V> | undefined;
}

interface Deferred<V> {
  promise: Promise<V>;
  resolve: (value: V) => void;
  reject: (error: unknown) => void;
}

function deferred<V>(): Deferred<V> {
  let resolve!: (value: V) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<V>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}
