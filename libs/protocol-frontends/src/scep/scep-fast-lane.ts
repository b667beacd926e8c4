import type { Server } from 'node:http';
import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { Request } from 'express';
import {
  acceptRequestId,
  assertSafeUrl,
  CertlaneLogger,
  FastLane,
  installInFront,
  LOGGER,
  Metrics,
  METRICS,
  presentedTls,
  readRawBody,
  RequestObserver,
  requestObserver,
  securityHeaderValues,
  writeErrorReply,
} from '@certlane/platform';
import { ScepHttpRequest, ScepHttpResponse } from './scep-server';
import { MAX_SCEP_BODY_BYTES } from './scep.controller';
import { ScepService } from './scep.service';

/** `/scep`, `/scep-mtls`, each alone or with a profile segment, up to the query string. */
const SCEP_PATH = /^\/scep(-mtls)?(\/[^?]*)?(?:\?|$)/;

/**
 * SCEP requests answered before Express and Nest (ADR 0035's fast lane, as EST's since ADR 0058's
 * speed amendment): what `ScepController` does, with the same request id, security headers, access
 * log line and metrics (under the controller's route patterns), body limit and error body. The
 * query string (`operation`, `message`) is handed over raw, as the controller does. Anything the
 * shared HTTP setup would treat differently goes on to Express: another method (HEAD, OPTIONS), an
 * `Origin` header (CORS) and a body labelled JSON (which the JSON parser reads, leaving the
 * controller an empty body).
 */
export function scepFastLane(
  handle: (request: ScepHttpRequest) => Promise<ScepHttpResponse>,
  observe: RequestObserver,
  logger: CertlaneLogger,
): FastLane {
  const security = securityHeaderValues();
  return (request, response, next) => {
    const url = request.url ?? '';
    const matched = SCEP_PATH.exec(url);
    if (!matched) return next();
    if (request.method !== 'GET' && request.method !== 'POST') return next();
    if (request.headers.origin !== undefined) return next();
    if (request.method === 'POST' && request.headers['content-type']?.toLowerCase().includes('json'))
      return next();
    const route = `/scep${matched[1] ?? ''}${matched[2] && matched[2] !== '/' ? '/*path' : ''}`;
    const requestId = acceptRequestId(request.headers['x-request-id']);
    response.setHeader('X-Request-Id', requestId);
    observe(request, response, requestId, () => route);
    for (const [name, value] of security) response.setHeader(name, value);
    void (async () => {
      try {
        assertSafeUrl(url);
        const body =
          request.method === 'POST' ? await readRawBody(request as Request, MAX_SCEP_BODY_BYTES) : undefined;
        const at = url.indexOf('?');
        const answer = await handle({
          method: request.method!,
          path: at === -1 ? url : url.slice(0, at),
          query: at === -1 ? '' : url.slice(at + 1),
          ...(body !== undefined ? { body } : {}),
          // What the client presented on this connection (ADR 0061): checked on `/scep-mtls` only.
          clientCertificates: presentedTls(request.socket)?.client_certificates ?? [],
        });
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

/** Installs the SCEP fast lane on the service's own listener when the application boots. */
@Injectable()
export class ScepFastLaneInstaller implements OnApplicationBootstrap {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly scep: ScepService,
    @Inject(METRICS) private readonly metrics: Metrics,
    @Inject(LOGGER) private readonly logger: CertlaneLogger,
  ) {}

  onApplicationBootstrap(): void {
    const server = this.adapterHost.httpAdapter?.getHttpServer() as Server | undefined;
    if (!server || typeof server.listeners !== 'function') return;
    installInFront(
      server,
      scepFastLane(
        (request) => this.scep.server.handle(request),
        requestObserver(this.logger, this.metrics),
        this.logger,
      ),
    );
  }
}
