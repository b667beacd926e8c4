import { All, Controller, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { presentedTls, PublicRoute, readRawBody } from '@certlane/platform';
import { ScepService } from './scep.service';

export const MAX_SCEP_BODY_BYTES = 256 * 1024;

/** The query string of a request as it came (`operation`, `message`), without the `?`. */
export const rawQuery = (request: Request): string => {
  const at = request.originalUrl.indexOf('?');
  return at === -1 ? '' : request.originalUrl.slice(at + 1);
};

/**
 * Every `/scep` and `/scep-mtls` path (spec 4.11) on the protocol-frontends listener (the quick
 * start's one listener). Authentication is SCEP's own (challenge password, MDM challenge, the
 * certificate being renewed), not the API's.
 */
@Controller()
@PublicRoute()
export class ScepController {
  constructor(private readonly scep: ScepService) {}

  @All(['scep', 'scep/*path', 'scep-mtls', 'scep-mtls/*path'])
  async handle(@Req() request: Request, @Res() response: Response): Promise<void> {
    // A body the JSON parser already read (a client labelling it JSON) is no pkiMessage: empty here.
    const body =
      request.method !== 'POST'
        ? undefined
        : request.readableEnded
          ? Buffer.alloc(0)
          : await readRawBody(request, MAX_SCEP_BODY_BYTES);
    const answer = await this.scep.server.handle({
      method: request.method,
      path: request.path,
      query: rawQuery(request),
      ...(body !== undefined ? { body } : {}),
      // What the client presented on this connection (ADR 0061): checked on `/scep-mtls` only.
      clientCertificates: presentedTls(request.socket)?.client_certificates ?? [],
    });
    response.status(answer.status);
    for (const [name, value] of Object.entries(answer.headers)) response.setHeader(name, value);
    if (answer.body === undefined || request.method === 'HEAD') response.end();
    else response.end(answer.body);
  }
}
