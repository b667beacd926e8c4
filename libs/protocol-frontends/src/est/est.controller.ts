import { All, Controller, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { presentedTls, PublicRoute, readRawBody } from '@certlane/platform';
import { EstService } from './est.service';

export const MAX_EST_BODY_BYTES = 256 * 1024;
/** The controller's route patterns (also the EST fast lane's metrics labels). */
export const EST_ROUTES = ['.well-known/est/*path', '.well-known/est-mtls/*path'];

/**
 * Every `/.well-known/est/...` path (spec 4.11), on the protocol-frontends listener (the quick
 * start's one listener). Authentication is EST's own (HTTP Basic, or the client certificate on `/.well-known/est-mtls/`), not the API's.
 */
@Controller()
@PublicRoute()
export class EstController {
  constructor(private readonly est: EstService) {}

  @All(EST_ROUTES)
  async handle(@Req() request: Request, @Res() response: Response): Promise<void> {
    // A body the JSON parser already read (a client labelling it JSON) is no EST body: empty here.
    const body =
      request.method !== 'POST'
        ? undefined
        : request.readableEnded
          ? ''
          : (await readRawBody(request, MAX_EST_BODY_BYTES)).toString('latin1');
    const answer = await this.est.server.handle({
      method: request.method,
      path: request.path,
      ...(request.headers.authorization ? { authorization: request.headers.authorization } : {}),
      ...(body !== undefined ? { body } : {}),
      ...presentedTls(request.socket),
    });
    response.status(answer.status);
    for (const [name, value] of Object.entries(answer.headers)) response.setHeader(name, value);
    if (answer.body === undefined || request.method === 'HEAD') response.end();
    else response.end(answer.body);
  }
}
