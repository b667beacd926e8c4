import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { Metrics, METRICS, securityHeaderValues } from '@certlane/platform';
import { OcspService } from '../ocsp/ocsp.service';
import { ocspGetKey, ocspHeaders } from './ocsp-http';

/** The route pattern the metrics record, as for the controller's route. */
export const OCSP_GET_ROUTE = '/ocsp/:issuerId/*request';
const ACCEPTABLE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const PLAIN_SEGMENT = /^[A-Za-z0-9._~-]{1,128}$/;

export type RequestListener = (request: IncomingMessage, response: ServerResponse) => void;

/**
 * An RFC 5019 GET whose answer is cached, answered before Express and Nest (which cost more than
 * the answer itself): the raw path is the cache key, nothing is parsed. The response carries what
 * the controller's would: the security headers, X-Request-Id, the OCSP cache headers, and it is
 * counted in the HTTP metrics. Anything else (a miss, another route, an issuer id that needs
 * decoding, a query string) returns false and goes on to Express.
 */
export function ocspFastLane(
  ocsp: Pick<OcspService, 'cached'>,
  observe: (method: string, route: string, status: number, seconds: number) => void,
): (request: IncomingMessage, response: ServerResponse) => boolean {
  const security = securityHeaderValues();
  return (request, response) => {
    const url = request.url;
    if (request.method !== 'GET' || url === undefined || !url.startsWith('/ocsp/') || url.includes('?')) {
      return false;
    }
    const slash = url.indexOf('/', 6);
    if (slash < 0) return false;
    const issuerId = url.slice(6, slash);
    if (!PLAIN_SEGMENT.test(issuerId)) return false;
    const answer = ocsp.cached(issuerId, ocspGetKey(url.slice(slash + 1)));
    if (!answer) return false;
    const started = process.hrtime.bigint();
    const inbound = request.headers['x-request-id'];
    const requestId =
      typeof inbound === 'string' && ACCEPTABLE_REQUEST_ID.test(inbound) ? inbound : randomUUID();
    for (const [name, value] of security) response.setHeader(name, value);
    response.setHeader('X-Request-Id', requestId);
    const headers = ocspHeaders(answer, true);
    for (const name in headers) response.setHeader(name, headers[name]);
    response.setHeader('content-length', answer.der.length);
    response.statusCode = 200;
    response.end(answer.der);
    observe('GET', OCSP_GET_ROUTE, 200, Number(process.hrtime.bigint() - started) / 1e9);
    return true;
  };
}

/** Puts the fast lane in front of the HTTP server's request listeners (Express). */
export function installInFront(
  server: Server,
  lane: (request: IncomingMessage, response: ServerResponse) => boolean,
): void {
  const listeners = server.listeners('request') as RequestListener[];
  server.removeAllListeners('request');
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    if (lane(request, response)) return;
    for (const listener of listeners) listener.call(server, request, response);
  });
}

/** Installs the OCSP fast lane on the service's own HTTPS listener when the application boots. */
@Injectable()
export class OcspFastLaneInstaller implements OnApplicationBootstrap {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly ocsp: OcspService,
    @Inject(METRICS) private readonly metrics: Metrics,
  ) {}

  onApplicationBootstrap(): void {
    const server = this.adapterHost.httpAdapter?.getHttpServer() as Server | undefined;
    if (!server || typeof server.listeners !== 'function') return;
    installInFront(server, ocspFastLane(this.ocsp, this.metrics.httpObserver()));
  }
}
