import type { Request } from 'express';
import { CertlaneError, ErrorCode } from '@certlane/contracts';

const PRELOADED = Symbol('certlane.preloadedBody');

/** Attaches a body already read from the request (by the OCSP fast lane) for readRawBody. */
export function preloadBody(request: object, body: Buffer): void {
  (request as Record<symbol, Buffer>)[PRELOADED] = body;
}

/**
 * The raw body of one request, at most `limit` bytes (or the body the OCSP fast lane read). The shared HTTP setup parses only JSON;
 * the OCSP POST route (application/ocsp-request) reads its DER body with this instead.
 */
export function readRawBody(request: Request, limit: number): Promise<Buffer> {
  const preloaded = (request as unknown as Record<symbol, Buffer | undefined>)[PRELOADED];
  if (preloaded) return Promise.resolve(preloaded);
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    return Promise.reject(
      new CertlaneError(ErrorCode.PayloadTooLarge, `request body exceeds ${limit} bytes`),
    );
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let length = 0;
    let failed = false;
    request.on('data', (chunk: Buffer) => {
      if (failed) return;
      length += chunk.length;
      if (length > limit) {
        failed = true;
        reject(new CertlaneError(ErrorCode.PayloadTooLarge, `request body exceeds ${limit} bytes`));
        return;
      }
      chunks.push(chunk);
    });
    request.once('end', () => {
      if (!failed) resolve(Buffer.concat(chunks, length));
    });
    request.once('error', (error) => {
      if (!failed) reject(error);
    });
  });
}
