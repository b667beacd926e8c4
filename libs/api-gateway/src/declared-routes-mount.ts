import { Injectable, OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { Request, Response } from 'express';
import { requestIdOf } from '@certlane/platform';
import { DECLARED_ROUTES } from './declared-routes';
import { RouteExecutor } from './routes/route-executor';

/**
 * The declared routes as Express routes, for every request the front lane leaves to Express
 * (CORS, HEAD, another spelling of the path, the lane switched off): Express's matching and
 * middleware (request id, security headers, CORS, access log and metrics, body parser and input
 * guard) as for any route, then the same route executor. Added when the modules initialise:
 * after Nest's controller routes, before the 405 fallback and the not-found handler.
 */
@Injectable()
export class DeclaredRoutesMount implements OnModuleInit {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly executor: RouteExecutor,
  ) {}

  onModuleInit(): void {
    const adapter = this.adapterHost.httpAdapter;
    if (!adapter) return;
    for (const route of DECLARED_ROUTES) {
      const method = route.method.toLowerCase() as 'get' | 'post' | 'put' | 'delete';
      adapter[method](route.path, (request: Request, response: Response) => {
        void this.executor.serve(
          route,
          {
            method: request.method,
            params: request.params as Record<string, string>,
            headers: request.headers,
            requestId: requestIdOf(request),
            path: request.path,
            body: () => Promise.resolve(request.body as unknown),
            query: () => request.query as Record<string, unknown>,
          },
          response,
        );
      });
    }
  }
}
