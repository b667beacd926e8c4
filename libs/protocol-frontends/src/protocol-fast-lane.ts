import type { IncomingMessage, Server } from 'node:http';
import type { HttpAdapterHost } from '@nestjs/core';
import type { Request } from 'express';
import {
  acceptRequestId,
  assertSafeUrl,
  CertlaneLogger,
  FastLane,
  installInFront,
  Metrics,
  readRawBody,
  RequestObserver,
  requestObserver,
  securityHeaderValues,
  writeErrorReply,
} from '@certlane/platform';

/** What a protocol server answers: status, headers and a body (text or bytes). */
export interface ProtocolAnswer {
  status: number;
  headers: Record<string, string | string[]>;
  body?: string | Buffer;
}

/** One protocol's part of a fast lane: which requests are its own and how they are read. */
export interface ProtocolLane<R> {
  /** The controller's route pattern for the metrics label; null for a request left to Express. */
  route(url: string): string | null;
  /** Bodies above this many bytes are refused (413), as the controller refuses them. */
  maxBodyBytes: number;
  /**
   * The lane's own reading of what the controller does differently (ACME): a body labelled JSON
   * is its own (`application/jose+json`, left unparsed on its paths), and a body over the limit
   * is dropped (read as absent, for the protocol to answer) instead of refused.
   */
  json?: { bodies: true; overLimit: 'dropped' };
  /** The protocol server's request: the URL, the message and its body (POST only). */
  read(url: string, request: IncomingMessage, body: Buffer | undefined): R;
  handle(request: R): Promise<ProtocolAnswer>;
}

/**
 * An enrollment protocol's requests answered before Express and Nest (ADR 0035's fast lane; EST
 * and SCEP, ADR 0058 and 0059 amendments): what its controller does, with the same request id,
 * security headers, access log line and metrics (under the controller's route patterns), body
 * limit and error body. Anything the shared HTTP setup would treat differently goes on to Express:
 * another method (HEAD, OPTIONS), an `Origin` header (CORS) and a body labelled JSON (which the
 * JSON parser reads, leaving the controller an empty body); so does whatever `route` declines.
 */
export function protocolFastLane<R>(
  lane: ProtocolLane<R>,
  observe: RequestObserver,
  logger: CertlaneLogger,
): FastLane {
  const security = securityHeaderValues();
  return (request, response, next) => {
    const url = request.url ?? '';
    const route = lane.route(url);
    if (route === null) return next();
    if (request.method !== 'GET' && request.method !== 'POST') return next();
    if (request.headers.origin !== undefined) return next();
    if (
      !lane.json &&
      request.method === 'POST' &&
      request.headers['content-type']?.toLowerCase().includes('json')
    )
      return next();
    const requestId = acceptRequestId(request.headers['x-request-id']);
    response.setHeader('X-Request-Id', requestId);
    observe(request, response, requestId, () => route);
    for (const [name, value] of security) response.setHeader(name, value);
    void (async () => {
      try {
        assertSafeUrl(url);
        const body = request.method === 'POST' ? await readBody(request as Request, lane) : undefined;
        const answer = await lane.handle(lane.read(url, request, body));
        response.statusCode = answer.status;
        for (const [name, value] of Object.entries(answer.headers)) response.setHeader(name, value);
        if (answer.body === undefined) response.end();
        else response.end(answer.body);
      } catch (error) {
        writeErrorReply(response, error, requestId, logger, url);
      }
    })();
  };
}

/** Puts a protocol's lane in front of the service's own listener (at application bootstrap). */
export function installProtocolLane<R>(
  adapterHost: HttpAdapterHost,
  lane: ProtocolLane<R>,
  deps: { metrics: Metrics; logger: CertlaneLogger },
): void {
  const server = adapterHost.httpAdapter?.getHttpServer() as Server | undefined;
  if (!server || typeof server.listeners !== 'function') return;
  installInFront(server, protocolFastLane(lane, requestObserver(deps.logger, deps.metrics), deps.logger));
}

function readBody<R>(request: Request, lane: ProtocolLane<R>): Promise<Buffer | undefined> {
  const reading = readRawBody(request, lane.maxBodyBytes);
  return lane.json?.overLimit === 'dropped' ? reading.catch(() => undefined) : reading;
}
