import { CertlaneLogger, FastLane, presentedTls, RequestObserver } from '@certlane/platform';
import { ProtocolLane, protocolFastLane } from '../protocol-fast-lane';
import { EstHttpRequest, EstHttpResponse } from './est-server';
import { EST_ROUTES, MAX_EST_BODY_BYTES } from './est.controller';

const [EST_ROUTE, EST_MTLS_ROUTE] = EST_ROUTES.map((pattern) => `/${pattern}`);

/**
 * EST's part of the protocol fast lane (ADR 0058 amendment "speed"): `/.well-known/est[-mtls]/`
 * without a query string (one goes on to Express), the body as text, the Authorization header and
 * what the client presented on its TLS connection, as `EstController` reads them.
 */
export function estLane(
  handle: (request: EstHttpRequest) => Promise<EstHttpResponse>,
): ProtocolLane<EstHttpRequest> {
  return {
    route: (url) =>
      url.includes('?')
        ? null
        : url.startsWith('/.well-known/est-mtls/')
          ? EST_MTLS_ROUTE
          : url.startsWith('/.well-known/est/')
            ? EST_ROUTE
            : null,
    maxBodyBytes: MAX_EST_BODY_BYTES,
    read: (url, request, body) => ({
      method: request.method!,
      path: url,
      ...(request.headers.authorization ? { authorization: request.headers.authorization } : {}),
      ...(body !== undefined ? { body: body.toString('latin1') } : {}),
      ...presentedTls(request.socket),
    }),
    handle,
  };
}

/** EST requests answered before Express and Nest, as `EstController` answers them. */
export function estFastLane(
  handle: (request: EstHttpRequest) => Promise<EstHttpResponse>,
  observe: RequestObserver,
  logger: CertlaneLogger,
): FastLane {
  return protocolFastLane(estLane(handle), observe, logger);
}
