/**
 * Polls `probe` until it returns true; fails with `what` after the deadline. The default deadline
 * is generous: events cross outbox, relay and JetStream, which a loaded 2-core CI machine slows.
 */
export async function eventually(
  probe: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 30_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
