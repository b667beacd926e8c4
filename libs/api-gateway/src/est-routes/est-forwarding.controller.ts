import { All, Controller, Inject, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { MESSAGE_BUS, MessageBus, presentedTls, PublicRoute, readRawBody } from '@certlane/platform';
import { busContext } from '../auth/actor';

const MAX_EST_BODY_BYTES = 256 * 1024;

/**
 * The EST paths (spec 4.11) on the one public origin when protocol-frontends runs as its own
 * process (ADR 0058, as ACME in ADR 0053): forwarded over the bus as they came, answered as
 * protocol-frontends answers. Authentication is EST's own (HTTP Basic, or the client certificate on `/.well-known/est-mtls/`, passed along with the connection's tls-exporter), so these routes are public here.
 */
@Controller()
@PublicRoute()
export class EstForwardingController {
  constructor(@Inject(MESSAGE_BUS) private readonly bus: MessageBus) {}

  @All(['.well-known/est/*path', '.well-known/est-mtls/*path'])
  async forward(@Req() request: Request, @Res() response: Response): Promise<void> {
    // A body the JSON parser already read (a client labelling it JSON) is no EST body: empty here.
    const body =
      request.method !== 'POST'
        ? undefined
        : request.readableEnded
          ? ''
          : (await readRawBody(request, MAX_EST_BODY_BYTES)).toString('latin1');
    const answer = await this.bus.request(
      'protocol-frontends.v1.est-http',
      {
        method: request.method,
        path: request.path,
        ...(request.headers.authorization ? { authorization: request.headers.authorization } : {}),
        ...(body !== undefined ? { body } : {}),
        ...presentedTls(request.socket),
      },
      { context: busContext(request) },
    );
    response.status(answer.status);
    for (const [name, value] of Object.entries(answer.headers)) response.setHeader(name, value);
    if (answer.body === undefined || request.method === 'HEAD') response.end();
    else response.end(answer.body);
  }
}
