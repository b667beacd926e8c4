import type { Writable } from 'node:stream';

/**
 * Writes to an HTTP response with backpressure: resolves once the chunk is buffered below the
 * high-water mark again (`drain`), and reports false when the client went away.
 */
export async function writeWithBackpressure(response: Writable, chunk: string): Promise<boolean> {
  if (response.destroyed || response.writableEnded) return false;
  if (response.write(chunk)) return true;
  return new Promise<boolean>((resolve) => {
    const done = (open: boolean) => {
      response.off('drain', onDrain);
      response.off('close', onClose);
      resolve(open);
    };
    const onDrain = () => done(true);
    const onClose = () => done(false);
    response.on('drain', onDrain);
    response.on('close', onClose);
  });
}

/** One JSON document per line, each line ending in `\n` (application/x-ndjson). */
export function ndjsonLines(items: readonly unknown[]): string {
  let text = '';
  for (const item of items) text += `${JSON.stringify(item)}\n`;
  return text;
}
