/**
 * One run of `work` per key at a time: a caller that asks while a run of its key is in flight gets
 * that run's outcome (its result or its error) instead of starting another. Once the run settles
 * the key is free, so the next caller starts afresh (a failure is not remembered). Per process;
 * across replicas the CRL build's advisory lock and its re-check do the rest (ADR 0021 amendment).
 */
export class SingleFlight<K, V> {
  private readonly flights = new Map<K, Promise<V>>();

  run(key: K, work: () => Promise<V>): Promise<V> {
    const inFlight = this.flights.get(key);
    if (inFlight) return inFlight;
    const flight = (async () => {
      try {
        return await work();
      } finally {
        this.flights.delete(key);
      }
    })();
    this.flights.set(key, flight);
    return flight;
  }

  /** Keys with a run in flight. */
  get size(): number {
    return this.flights.size;
  }
}
