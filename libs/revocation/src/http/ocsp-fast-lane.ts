import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { FastLane, installInFront, Metrics, METRICS, securityHeaderValues } from '@certlane/platform';
import { isOcspRequestContentType, MAX_OCSP_REQUEST_BYTES } from '@certlane/pki';
import { OcspAnswer, OcspService } from '../ocsp/ocsp.service';
import { ocspGetKey, ocspHeaders, ocspPostKey } from '../ocsp/ocsp-http';
import { preloadBody } from '@certlane/platform';

/** The route patterns the metrics record, as for the controller's routes. */
export const OCSP_GET_ROUTE = '/ocsp/:issuerId/*request';
export const OCSP_POST_ROUTE = '/ocsp/:issuerId';
const ACCEPTABLE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const PLAIN_SEGMENT = /^[A-Za-z0-9._~-]{1,128}$/;

/**
 * OCSP requests whose answer is cached, answered before Express and Nest (which cost ten times
 * more than the answer itself): an RFC 5019 GET by its raw path, an RFC 6960 POST by its body
 * bytes; nothing is parsed. The response carries what the controller's would: the security
 * headers, X-Request-Id, the OCSP cache headers, and it is counted in the HTTP metrics (there is
 * no access-log line). Anything else (a miss, another route, an issuer id that needs decoding, a
 * query string, a POST without a Content-Length within the limit or of another media type) goes
 * on to Express; a POST body already read travels with the request (see readRawBody).
 */
export function ocspFastLane(
  ocsp: Pick<OcspService, 'cached'>,
  observe: (method: string, route: string, status: number, seconds: number) => void,
): FastLane {
  const security = securityHeaderValues().flat();
  // The headers of one answer as writeHead's flat [name, value, ...] list, per memoised header set.
  const flat = new WeakMap<object, string[]>();
  const flatHeaders = (answer: OcspAnswer, cacheable: boolean): string[] => {
    const headers = ocspHeaders(answer, cacheable);
    let list = flat.get(headers);
    if (!list) {
      list = [...security, ...Object.entries(headers).flat(), 'content-length', String(answer.der.length)];
      flat.set(headers, list);
    }
    return list;
  };
  const send = (
    request: IncomingMessage,
    response: ServerResponse,
    answer: OcspAnswer,
    post: boolean,
    started: bigint,
  ) => {
    const inbound = request.headers['x-request-id'];
    const requestId =
      typeof inbound === 'string' && ACCEPTABLE_REQUEST_ID.test(inbound) ? inbound : randomUUID();
    response.writeHead(200, [...flatHeaders(answer, !post), 'X-Request-Id', requestId]);
    response.end(answer.der);
    observe(
      post ? 'POST' : 'GET',
      post ? OCSP_POST_ROUTE : OCSP_GET_ROUTE,
      200,
      Number(process.hrtime.bigint() - started) / 1e9,
    );
  };
  return (request, response, next) => {
    const url = request.url;
    if (url === undefined || !url.startsWith('/ocsp/') || url.includes('?')) return next();
    const started = process.hrtime.bigint();
    if (request.method === 'GET') {
      const slash = url.indexOf('/', 6);
      if (slash < 0) return next();
      const issuerId = url.slice(6, slash);
      if (!PLAIN_SEGMENT.test(issuerId)) return next();
      const answer = ocsp.cached(issuerId, ocspGetKey(url.slice(slash + 1)));
      return answer ? send(request, response, answer, false, started) : next();
    }
    if (request.method !== 'POST') return next();
    const issuerId = url.slice(6);
    const length = Number(request.headers['content-length']);
    if (
      !PLAIN_SEGMENT.test(issuerId) ||
      !isOcspRequestContentType(request.headers['content-type']) ||
      request.headers['transfer-encoding'] !== undefined ||
      !Number.isInteger(length) ||
      length > MAX_OCSP_REQUEST_BYTES
    ) {
      return next();
    }
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.once('end', () => {
      const body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
      const answer = ocsp.cached(issuerId, ocspPostKey(body));
      if (answer) return send(request, response, answer, true, started);
      preloadBody(request, body);
      next();
    });
    request.once('error', (error) => response.destroy(error));
  };
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
