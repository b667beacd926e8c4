import { All, Controller, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { clientIp, PublicRoute } from '@certlane/platform';
import { readAcmeBody } from './acme-body';
import { answerOnTheWire } from './acme-http';
import { AcmeService } from './acme.service';

/**
 * Every `/acme/...` path (spec 4.11), on the protocol-frontends listener (the quick start's one
 * listener, ADR 0053). Authentication is the JWS of each request (spec 5.2), not the API's.
 */
@Controller()
@PublicRoute()
export class AcmeController {
  constructor(private readonly acme: AcmeService) {}

  @All('acme/*path')
  async handle(@Req() request: Request, @Res() response: Response): Promise<void> {
    const answer = await this.acme.server.handle({
      method: request.method,
      path: request.path,
      origin: `https://${request.headers.host ?? 'localhost'}`,
      body: await readAcmeBody(request),
      contentType: request.headers['content-type'],
      ...(request.headers.accept ? { accept: request.headers.accept } : {}),
      clientIp: clientIp(request),
    });
    const { status, headers, body } = answerOnTheWire(answer);
    response.status(status);
    for (const [name, value] of Object.entries(headers)) response.setHeader(name, value);
    if (body === undefined || request.method === 'HEAD') response.end();
    else response.end(body);
  }
}
