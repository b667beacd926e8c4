import { DynamicModule, INestApplication, Module, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
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

  const app = await NestFactory.create(CertlaneRootModule, new IndexedExpressAdapter(), {
    httpsOptions: httpsServerOptions(deps.tls, deps.config.tls.requestClientCert),
    bodyParser: false,
    logger: new NestPinoLogger(deps.logger),
    abortOnError: false,
  });
  configureHttp(app, deps);
  return app;
}
