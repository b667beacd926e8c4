import { Server as HttpsServer } from 'node:https';
import { DynamicModule, INestApplication, Module, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { Express } from 'express';
import { httpsServerOptions, TlsMaterial } from '../tls/server-tls';
import { configureHttp } from '../http/configure-http';
import { IndexedExpressAdapter } from '../http/indexed-express-adapter';
import { NestPinoLogger } from '../logging/logger';
import { PlatformDeps, PlatformModule } from './platform.module';

/**
 * Builds the Nest application of one process: the platform providers, the given feature
 * modules, the shared HTTP conventions and an HTTPS (TLS 1.3 only) server. Used by each service's
 * main and by the single-process quick start.
 */
export async function createCertlaneApp(
  deps: PlatformDeps & { tls: TlsMaterial },
  modules: (Type | DynamicModule)[],
): Promise<INestApplication> {
  @Module({ imports: [PlatformModule.forRoot(deps), ...modules] })
  class CertlaneRootModule {}

  const adapter = new IndexedExpressAdapter();
  // Paths are case-sensitive (RFC 3986 6.2.2.1), as an ingress's rules are: `/METRICS` must not
  // reach the `/metrics` an ingress keeps from the public.
  adapter.getInstance<Express>().set('case sensitive routing', true);
  const app = await NestFactory.create(CertlaneRootModule, adapter, {
    httpsOptions: httpsServerOptions(deps.tls, deps.config.tls.requestClientCert),
    bodyParser: false,
    logger: new NestPinoLogger(deps.logger),
    abortOnError: false,
  });
  configureHttp(app, deps);
  keepIdleConnectionsLonger(app.getHttpServer() as HttpsServer);
  return app;
}

/**
 * Node closes an idle keep-alive connection after 5 s; clients and load balancers keep theirs
 * longer (60 s is the common idle timeout) and reuse them, so a request sent as the server closes
 * is reset. A browser that finds several such sockets in its pool gives up
 * (`ERR_TOO_MANY_RETRIES`). The server keeps idle connections past those timeouts instead, and
 * waits for headers a little longer than that. `close()` still ends idle connections at once.
 */
export const KEEP_ALIVE_TIMEOUT_MS = 65_000;

function keepIdleConnectionsLonger(server: HttpsServer): void {
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  server.headersTimeout = KEEP_ALIVE_TIMEOUT_MS + 1_000;
}
