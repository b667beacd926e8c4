import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { NextFunction, Request, Response } from 'express';
import { CertlaneError, ErrorCode } from '@certlane/contracts';
import { RouteEntry } from '../routes/route-table';
import { AllowedMethods } from './allowed-methods';

/** The gateway's route table (provided by the module, which owns the controller list). */
export const GATEWAY_ROUTES = 'CERTLANE_GATEWAY_ROUTES';

/**
 * 405 with `Allow` for a known path called with a method it does not serve (spec 4.9, 7). It is
 * added to the app after every route (Nest registers routes before the modules' init hooks and the
 * not-found handler after them), so only a request that no route matched pays for the check.
 */
@Injectable()
export class MethodNotAllowedFallback implements OnModuleInit {
  private readonly allowed: AllowedMethods;

  constructor(
    @Inject(GATEWAY_ROUTES) routes: RouteEntry[],
    private readonly adapterHost: HttpAdapterHost,
  ) {
    this.allowed = new AllowedMethods(routes);
  }

  onModuleInit(): void {
    this.adapterHost.httpAdapter?.use((request: Request, response: Response, next: NextFunction) =>
      this.use(request, response, next),
    );
  }

  use(request: Request, response: Response, next: NextFunction): void {
    const allow = this.allowed.refuse(request.method, request.originalUrl);
    if (!allow) return next();
    response.setHeader('Allow', allow.join(', '));
    next(
      new CertlaneError(
        ErrorCode.MethodNotAllowed,
        `${request.method} is not allowed here; allowed: ${allow.join(', ')}`,
      ),
    );
  }
}
