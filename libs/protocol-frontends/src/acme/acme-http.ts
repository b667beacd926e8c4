import { AcmeProblem, PROBLEM_CONTENT_TYPE } from '@certlane/protocol-frontends-domain';

/** An ACME request as the server sees it, whichever listener received it. */
export interface AcmeHttpRequest {
  method: string;
  /** The path without the query string. */
  path: string;
  /** `https://<Host>`: the origin the client addressed (the `url` header must name it). */
  origin: string;
  /** The parsed JSON body of a POST (undefined otherwise). */
  body?: unknown;
  contentType?: string;
  /** The `Accept` header (the certificate download's format, RFC 8555 7.4.2). */
  accept?: string;
  /** The client's address (per-IP rate limits); absent when unknown. */
  clientIp?: string;
}

export interface AcmeHttpResponse {
  status: number;
  headers: Record<string, string | string[]>;
  /** JSON (objects), PEM (strings), DER (bytes) or nothing. */
  body?: unknown;
}

/** An answer as it goes on the wire: JSON bodies as text, PEM and DER as they are. */
export function answerOnTheWire(answer: AcmeHttpResponse): {
  status: number;
  headers: Record<string, string | string[]>;
  body?: string | Buffer;
} {
  const { body } = answer;
  return {
    status: answer.status,
    headers: answer.headers,
    ...(body === undefined
      ? {}
      : { body: typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body) }),
  };
}

export const JOSE_CONTENT_TYPE = 'application/jose+json';
export const PEM_CHAIN_CONTENT_TYPE = 'application/pem-certificate-chain';

export function json(
  status: number,
  body: unknown,
  headers: Record<string, string | string[]> = {},
): AcmeHttpResponse {
  return { status, headers: { 'Content-Type': 'application/json', ...headers }, body };
}

export function problem(error: AcmeProblem): AcmeHttpResponse {
  const headers: Record<string, string> = { 'Content-Type': PROBLEM_CONTENT_TYPE };
  if (error.extra.retryAfterSeconds !== undefined)
    headers['Retry-After'] = String(error.extra.retryAfterSeconds);
  if (error.extra.termsOfService) headers['Link'] = `<${error.extra.termsOfService}>;rel="terms-of-service"`;
  return { status: error.status, headers, body: error.toDocument() };
}
