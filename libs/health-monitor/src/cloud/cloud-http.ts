/** Each call to a cloud API gives up after this long. */
export const CLOUD_CALL_TIMEOUT_MS = 30_000;
/** A cloud API answer larger than this is refused (a page of a listing is far smaller). */
export const CLOUD_ANSWER_MAX_BYTES = 4 * 1_048_576;

/** A cloud API call that failed: the status and the provider's error code, never the body. */
export class CloudApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    what: string,
  ) {
    super(`${what}: HTTP ${status}${code ? ` ${code}` : ''}`);
  }
}

/**
 * The body of an answer as text, read as it streams in: past `maxBytes` the read stops and the
 * connection is dropped, so an endless or huge answer is never held in memory.
 */
export async function boundedText(response: Response, maxBytes: number, what: string): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw new Error(`${what}: the answer is larger than ${maxBytes} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** One JSON call; `what` names it in errors (never a secret). Answers the parsed JSON. */
export async function cloudJson<T>(url: string, init: RequestInit, what: string): Promise<T> {
  const response = await fetch(url, {
    ...init,
    redirect: 'error',
    signal: AbortSignal.timeout(CLOUD_CALL_TIMEOUT_MS),
  });
  const text = await boundedText(response, CLOUD_ANSWER_MAX_BYTES, what);
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    if (response.ok) throw new Error(`${what}: the answer is not JSON`);
  }
  if (!response.ok) {
    const record = (body ?? {}) as Record<string, unknown>;
    const nested = record.error as Record<string, unknown> | string | undefined;
    const code =
      (typeof record.__type === 'string' && record.__type) ||
      (typeof nested === 'string' && nested) ||
      (typeof nested === 'object' && typeof nested?.code === 'string' && nested.code) ||
      (typeof nested === 'object' && typeof nested?.status === 'string' && nested.status) ||
      '';
    throw new CloudApiError(response.status, String(code).slice(0, 100), what);
  }
  return body as T;
}

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----\r?\n[A-Za-z0-9+/=\r\n]+?-----END CERTIFICATE-----/g;

/**
 * The PEM certificate blocks of a secret's text. A secret often holds its key beside the
 * certificate: only CERTIFICATE blocks are taken; the rest of the text is dropped, unparsed.
 */
export function certificateBlocks(text: string): string[] {
  return [...text.matchAll(PEM_CERTIFICATE)].map((match) => `${match[0]}\n`);
}
