import { All, Controller, Inject, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { AcmeHttpForwardRequest, CertlaneError } from '@certlane/contracts';
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
    const forwarded: AcmeHttpForwardRequest = {
      method: request.method,
      path: request.path,
      origin: `https://${request.headers.host ?? 'localhost'}`,
      client_ip: clientIp(request),
      ...(request.headers['content-type'] ? { content_type: request.headers['content-type'] } : {}),
      ...(request.headers.accept ? { accept: request.headers.accept.slice(0, 1024) } : {}),
      ...(body ? { body_json: body } : {}),
    };
    const ask = (payload: AcmeHttpForwardRequest) =>
      this.bus.request('protocol-frontends.v1.acme-http', payload, { context: busContext(request) });
    // A protocol-frontends older than `accept` refuses the field while a rolling upgrade runs:
    // asked again without it, it answers as it always did (the PEM chain).
    const answer = await ask(forwarded).catch((error: unknown) => {
      if (!CertlaneError.refusesField(error, 'accept')) throw error;
      const { accept: _accept, ...withoutAccept } = forwarded;
      return ask(withoutAccept);
    });
    response.status(answer.status);
    for (const [name, value] of Object.entries(answer.headers)) response.setHeader(name, value);
    const payload =
      answer.body_base64 !== undefined ? Buffer.from(answer.body_base64, 'base64') : answer.body;
    if (payload === undefined || request.method === 'HEAD') response.end();
    else response.end(payload);
  }
}
