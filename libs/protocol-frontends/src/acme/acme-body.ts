import type { Request } from 'express';
import { readRawBody } from '@certlane/platform';

/** The largest ACME request body read (a JWS around a CSR of a few kilobytes fits many times). */
export const MAX_ACME_BODY_BYTES = 64 * 1024;

/**
 * The body of an ACME POST as JSON, or `undefined` when it is absent, too large or not JSON: the
 * JWS checks then answer `malformed` as a problem document (the shared listener leaves /acme/
 * bodies unparsed for this, ADR 0053).
 */
export async function readAcmeBody(request: Request): Promise<unknown> {
  if (request.method !== 'POST') return undefined;
  return parseAcmeBody(await readRawBody(request, MAX_ACME_BODY_BYTES).catch(() => undefined));
}

/** A raw ACME body as JSON; `undefined` for none (over the limit) or one that is not JSON. */
export function parseAcmeBody(raw: Buffer | string | undefined): unknown {
  if (!raw?.length) return undefined;
  try {
    return JSON.parse(typeof raw === 'string' ? raw : raw.toString('utf8'));
  } catch {
    return undefined;
  }
}
