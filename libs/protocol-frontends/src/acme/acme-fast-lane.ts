import type { IncomingMessage } from 'node:http';
import { CertlaneLogger, FastLane, RequestObserver } from '@certlane/platform';
import { ProtocolLane, protocolFastLane } from '../protocol-fast-lane';
import { MAX_ACME_BODY_BYTES, parseAcmeBody } from './acme-body';
import { AcmeHttpRequest, AcmeHttpResponse, answerOnTheWire } from './acme-http';

/** `AcmeController`'s route pattern, the metrics label of every ACME request. */
const ACME_ROUTE = '/acme/*path';

/**
 * ACME's part of the protocol fast lane (ADR 0067 amendment, second stop): `/acme/` paths without
 * a query string, read as `AcmeController` reads them (the JWS body parsed, or absent when over
 * 64 KiB or not JSON; the origin from the Host header; the client address through the trusted
 * proxies), answered as it answers them.
 */
export function acmeLane(
  handle: (request: AcmeHttpRequest) => Promise<AcmeHttpResponse>,
  clientIpOf: (request: IncomingMessage) => string,
): ProtocolLane<AcmeHttpRequest> {
  return {
    route: (url) => (url.startsWith('/acme/') && !url.includes('?') ? ACME_ROUTE : null),
    maxBodyBytes: MAX_ACME_BODY_BYTES,
    json: { bodies: true, overLimit: 'dropped' },
    read: (url, request, body) => ({
      method: request.method!,
      path: url,
      origin: `https://${request.headers.host ?? 'localhost'}`,
      ...(request.method === 'POST' ? { body: parseAcmeBody(body) } : {}),
      ...(request.headers['content-type'] ? { contentType: request.headers['content-type'] } : {}),
      ...(request.headers.accept ? { accept: request.headers.accept } : {}),
      clientIp: clientIpOf(request),
    }),
    handle: async (request) => answerOnTheWire(await handle(request)),
  };
}

/** ACME requests answered before Express and Nest, as `AcmeController` answers them. */
export function acmeFastLane(
  handle: (request: AcmeHttpRequest) => Promise<AcmeHttpResponse>,
  observe: RequestObserver,
  logger: CertlaneLogger,
  clientIpOf: (request: IncomingMessage) => string,
): FastLane {
  return protocolFastLane(acmeLane(handle, clientIpOf), observe, logger);
}
