import { All, Controller, Inject, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { clientIp, MESSAGE_BUS, MessageBus, PublicRoute, readRawBody } from '@certlane/platform';
import { busContext } from '../auth/actor';

/**
 * The ACME paths (spec 4.11) on the one public origin when protocol-frontends runs as its own
 * process (ADR 0053, the way of ADR 0038): forwarded over the bus as they came, answered with the
 * status, headers and body protocol-frontends gives. Authentication is each request's JWS, so
 * these routes are public here. Not mounted in the quick start, where the protocol-frontends
 * controller shares the listener.
 */
@Controller()
@PublicRoute()
export class AcmeForwardingController {
  constructor(@Inject(MESSAGE_BUS) private readonly bus: MessageBus) {}

  @All('acme/*path')
  async forward(@Req() request: Request, @Res() response: Response): Promise<void> {
    // The listener leaves /acme/ bodies unparsed; protocol-frontends parses them, so a body that
    // is not JSON is answered there as an ACME problem document. 64 KiB as on its own listener.
    const body =
      request.method === 'POST'
        ? await readRawBody(request, 64 * 1024).then(String, () => undefined)
        : undefined;
    const answer = await this.bus.request(
      'protocol-frontends.v1.acme-http',
      {
        method: request.method,
        path: request.path,
        origin: `https://${request.headers.host ?? 'localhost'}`,
        client_ip: clientIp(request),
        ...(request.headers['content-type'] ? { content_type: request.headers['content-type'] } : {}),
        ...(body ? { body_json: body } : {}),
      },
      { context: busContext(request) },
    );
    response.status(answer.status);
    for (const [name, value] of Object.entries(answer.headers)) response.setHeader(name, value);
    if (answer.body === undefined || request.method === 'HEAD') response.end();
    else response.end(answer.body);
  }
}
