import { Inject, Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { CertlaneError, ErrorCode } from '@certlane/contracts';
import { RouteEntry } from '../auth/route-table';
import { AllowedMethods } from './allowed-methods';

/** The gateway's route table (provided by the module, which owns the controller list). */
export const GATEWAY_ROUTES = 'CERTLANE_GATEWAY_ROUTES';

/** 405 with `Allow` for a known path called with a method it does not serve (spec 4.9, 7). */
@Injectable()
export class MethodNotAllowedMiddleware implements NestMiddleware {
  private readonly allowed: AllowedMethods;

  constructor(@Inject(GATEWAY_ROUTES) routes: RouteEntry[]) {
    this.allowed = new AllowedMethods(routes);
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
