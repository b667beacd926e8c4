import { request } from 'node:https';

export interface VaultHttpOptions {
  /** Trusted roots: the system's and SERVICE_SERVER_CA_BUNDLE_PATH's. */
  ca: string[];
  rejectUnauthorized: boolean;
  timeoutMs: number;
}

export interface VaultAnswer {
  status: number;
  /** The JSON body, or null when it was not JSON. */
  json: Record<string, unknown> | null;
}

/** Vault's answers are small: a certificate and its chain. */
const MAX_ANSWER_BYTES = 1024 * 1024;

/** A network failure or timeout reaching Vault: the CA is unavailable. */
export class VaultUnreachable extends Error {}

/** One request to Vault's HTTP API: JSON in and out, with its token and namespace headers. */
export function vaultRequest(
  options: VaultHttpOptions,
  method: 'GET' | 'POST',
  url: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<VaultAnswer> {
  const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method,
        ca: options.ca,
        rejectUnauthorized: options.rejectUnauthorized,
        minVersion: 'TLSv1.2',
        timeout: options.timeoutMs,
        headers: {
          accept: 'application/json',
          ...headers,
          ...(payload
            ? { 'content-type': 'application/json', 'content-length': String(payload.length) }
            : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_ANSWER_BYTES) {
            req.destroy(new VaultUnreachable(`Vault answered more than ${MAX_ANSWER_BYTES} bytes`));
            return;
          }
          chunks.push(chunk);
        });
        res.on('end', () => {
          let json: Record<string, unknown> | null = null;
          try {
            const parsed: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
            if (typeof parsed === 'object' && parsed !== null) json = parsed as Record<string, unknown>;
          } catch {
            json = null;
          }
          resolve({ status: res.statusCode ?? 0, json });
        });
        res.on('error', (error) => reject(new VaultUnreachable(error.message)));
      },
    );
    req.on('timeout', () => req.destroy(new VaultUnreachable(`no answer within ${options.timeoutMs} ms`)));
    req.on('error', (error) =>
      reject(error instanceof VaultUnreachable ? error : new VaultUnreachable(error.message)),
    );
    req.end(payload);
  });
}
