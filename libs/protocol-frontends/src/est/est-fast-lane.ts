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
import { EstHttpRequest, EstHttpResponse } from './est-server';
import { EST_ROUTES, MAX_EST_BODY_BYTES } from './est.controller';
import { EstService } from './est.service';

const [EST_ROUTE, EST_MTLS_ROUTE] = EST_ROUTES.map((pattern) => `/${pattern}`);

/**
 * EST requests answered before Express and Nest (ADR 0035's fast lane, for the enrollment hot
 * path of issue 20): what `EstController` does, with the same request id, security headers,
 * access log line and metrics (under the controller's route patterns), body limit and error body.
 * Anything the shared HTTP setup would treat differently goes on to Express: another method
 * (HEAD, OPTIONS), an `Origin` header (CORS), a query string, and a body labelled JSON (which the
 * JSON parser reads, leaving the controller an empty body).
 */
export function estFastLane(
  handle: (request: EstHttpRequest) => Promise<EstHttpResponse>,
  observe: RequestObserver,
  logger: CertlaneLogger,
): FastLane {
  const security = securityHeaderValues();
  return (request, response, next) => {
    const url = request.url ?? '';
    const mtls = url.startsWith('/.well-known/est-mtls/');
    if (!mtls && !url.startsWith('/.well-known/est/')) return next();
    if (request.method !== 'GET' && request.method !== 'POST') return next();
    if (request.headers.origin !== undefined || url.includes('?')) return next();
    if (request.method === 'POST' && request.headers['content-type']?.toLowerCase().includes('json'))
      return next();
    const requestId = acceptRequestId(request.headers['x-request-id']);
    response.setHeader('X-Request-Id', requestId);
    observe(request, response, requestId, () => (mtls ? EST_MTLS_ROUTE : EST_ROUTE));
    for (const [name, value] of security) response.setHeader(name, value);
    void (async () => {
      try {
        assertSafeUrl(url);
        const body =
          request.method === 'POST'
            ? (await readRawBody(request as Request, MAX_EST_BODY_BYTES)).toString('latin1')
            : undefined;
        const answer = await handle({
          method: request.method!,
          path: url,
          ...(request.headers.authorization ? { authorization: request.headers.authorization } : {}),
          ...(body !== undefined ? { body } : {}),
          ...presentedTls(request.socket),
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

/** Installs the EST fast lane on the service's own listener when the application boots. */
@Injectable()
export class EstFastLaneInstaller implements OnApplicationBootstrap {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly est: EstService,
    @Inject(METRICS) private readonly metrics: Metrics,
    @Inject(LOGGER) private readonly logger: CertlaneLogger,
  ) {}

  onApplicationBootstrap(): void {
    const server = this.adapterHost.httpAdapter?.getHttpServer() as Server | undefined;
    if (!server || typeof server.listeners !== 'function') return;
    installInFront(
      server,
      estFastLane(
        (request) => this.est.server.handle(request),
        requestObserver(this.logger, this.metrics),
        this.logger,
      ),
    );
  }
}
