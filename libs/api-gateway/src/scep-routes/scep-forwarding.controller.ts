import { All, Controller, Inject, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { MESSAGE_BUS, MessageBus, presentedTls, PublicRoute, readRawBody } from '@certlane/platform';
import { busContext } from '../auth/actor';

const MAX_SCEP_BODY_BYTES = 256 * 1024;

/**
 * The SCEP paths (spec 4.11) on the one public origin when protocol-frontends runs as its own
 * process (ADR 0059, as EST in ADR 0058): forwarded over the bus with the query string and the
 * binary body as base64, answered as protocol-frontends answers. SCEP authorises by its own
 * means, so these routes are public here.
 */
@Controller()
@PublicRoute()
export class ScepForwardingController {
  constructor(@Inject(MESSAGE_BUS) private readonly bus: MessageBus) {}

  @All(['scep', 'scep/*path', 'scep-mtls', 'scep-mtls/*path'])
  async forward(@Req() request: Request, @Res() response: Response): Promise<void> {
    const body =
      request.method !== 'POST'
        ? undefined
        : request.readableEnded
          ? Buffer.alloc(0)
          : await readRawBody(request, MAX_SCEP_BODY_BYTES);
    const at = request.originalUrl.indexOf('?');
    const answer = await this.bus.request(
      'protocol-frontends.v1.scep-http',
      {
        method: request.method,
        path: request.path,
        ...(at !== -1 ? { query: request.originalUrl.slice(at + 1) } : {}),
        ...(body !== undefined && body.length > 0 ? { body_base64: body.toString('base64') } : {}),
        // Passed on unverified (ADR 0061): protocol-frontends checks them on `/scep-mtls`.
        client_certificates: presentedTls(request.socket)?.client_certificates ?? [],
      },
      { context: busContext(request) },
    );
    response.status(answer.status);
    for (const [name, value] of Object.entries(answer.headers)) response.setHeader(name, value);
    if (answer.body_base64 === undefined || request.method === 'HEAD') response.end();
    else response.end(Buffer.from(answer.body_base64, 'base64'));
  }
}
