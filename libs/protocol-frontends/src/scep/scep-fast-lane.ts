import { CertlaneLogger, FastLane, presentedTls, RequestObserver } from '@certlane/platform';
import { ProtocolLane, protocolFastLane } from '../protocol-fast-lane';
import { ScepHttpRequest, ScepHttpResponse } from './scep-server';
import { MAX_SCEP_BODY_BYTES } from './scep.controller';

/** `/scep`, `/scep-mtls`, each alone or with a profile segment, up to the query string. */
const SCEP_PATH = /^\/scep(-mtls)?(\/[^?]*)?(?:\?|$)/;

/**
 * SCEP's part of the protocol fast lane (ADR 0059 amendment, evening): `/scep[-mtls][/<path_id>]`
 * labelled with `ScepController`'s route patterns, the query string (`operation`, `message`)
 * handed over raw, the body as bytes and the client certificates of the connection, as the
 * controller reads them.
 */
export function scepLane(
  handle: (request: ScepHttpRequest) => Promise<ScepHttpResponse>,
): ProtocolLane<ScepHttpRequest> {
  return {
    route: (url) => {
      const matched = SCEP_PATH.exec(url);
      if (!matched) return null;
      return `/scep${matched[1] ?? ''}${matched[2] && matched[2] !== '/' ? '/*path' : ''}`;
    },
    maxBodyBytes: MAX_SCEP_BODY_BYTES,
    read: (url, request, body) => {
      const at = url.indexOf('?');
      return {
        method: request.method!,
        path: at === -1 ? url : url.slice(0, at),
        query: at === -1 ? '' : url.slice(at + 1),
        ...(body !== undefined ? { body } : {}),
        // What the client presented on this connection (ADR 0061): checked on `/scep-mtls` only.
        clientCertificates: presentedTls(request.socket)?.client_certificates ?? [],
      };
    },
    handle,
  };
}

/** SCEP requests answered before Express and Nest, as `ScepController` answers them. */
export function scepFastLane(
  handle: (request: ScepHttpRequest) => Promise<ScepHttpResponse>,
  observe: RequestObserver,
  logger: CertlaneLogger,
): FastLane {
  return protocolFastLane(scepLane(handle), observe, logger);
}
