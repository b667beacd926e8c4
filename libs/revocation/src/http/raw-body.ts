import type { Request } from 'express';
import { CertlaneError, ErrorCode } from '@certlane/contracts';

/**
 * The raw body of one request, at most `limit` bytes. The shared HTTP setup parses only JSON;
 * the OCSP POST route (application/ocsp-request) reads its DER body with this instead.
 */
export function readRawBody(request: Request, limit: number): Promise<Buffer> {
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
