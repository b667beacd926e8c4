import { DynamicModule, Type } from '@nestjs/common';
import type { Server as HttpsServer } from 'node:https';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ServiceName } from '@certlane/contracts';
import { CertlaneConfig } from '../config/certlane-config';
import { CONFIG_ERROR_EXIT_CODE, ConfigError } from '../config/config-error';
import { loadConfig } from '../config/load-config';
import { warnAboutRiskySettings } from './startup-warnings';
import { locateMigrationsDir } from '../database/migrations-dir';
import { runMigrations } from '../database/migration-runner';
import { postgresConnection } from '../database/postgres-connection';
import { schemaFor } from '../database/schema-name';
import { CertlaneLogger, createLogger } from '../logging/logger';
import { Metrics } from '../observability/metrics';
import { ReadinessRegistry } from '../observability/readiness';
import { outboundTlsOptions } from '../tls/outbound-tls';
import { readTlsMaterial, reloadTlsOnSighup } from '../tls/server-tls';
import { readBuildInfo } from './build-info';
import { busHooks, connectNatsBus } from './connect-bus';
import { createCertlaneApp } from './create-app';

/** Prints a refused configuration as one line and exits with EX_CONFIG; rethrows anything else. */
export function exitOnConfigError(program: string, error: unknown): never {
  if (error instanceof ConfigError) {
    process.stderr.write(`${program}: configuration error: ${error.message}\n`);
    process.exit(CONFIG_ERROR_EXIT_CODE);
  }
  throw error;
}

/** Applies one service's migrations, retrying while the database is not reachable yet. */
export async function migrateService(
  service: ServiceName,
  config: CertlaneConfig,
  logger: CertlaneLogger,
  attempts = 30,
): Promise<void> {
  const directory = join(locateMigrationsDir(config.migrationsDir), service);
  if (!existsSync(directory))
    logger.warn({ directory }, 'no migrations directory for this service; only platform tables are created');
  const connection = postgresConnection(config.database.url, outboundTlsOptions(config.outboundTls));
  for (let attempt = 1; ; attempt++) {
    try {
      const result = await runMigrations({
        databaseUrl: connection.connectionString,
        ssl: connection.ssl,
        schema: schemaFor(service),
        directory,
        demoSeed: config.demoSeed,
        log: (message, fields) => logger.info(fields ?? {}, message),
      });
      logger.info(
        { schema: schemaFor(service), applied: result.applied.length, seeds: result.seeds },
        'schema is up to date',
      );
      return;
    } catch (error) {
      const code = (error as { code?: string }).code;
      const transient =
        code === 'ECONNREFUSED' || code === '57P03' || code === 'ENOTFOUND' || code === 'ETIMEDOUT';
      if (!transient || attempt >= attempts) throw error;
      logger.warn({ attempt, err: error }, 'database not reachable yet; retrying');
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
}

/** The main of a separately deployed service: config, migrations, NATS, the TLS listener. */
export async function runService(service: ServiceName, modules: (Type | DynamicModule)[]): Promise<void> {
  const program = `certlane-${service}`;
  let config: CertlaneConfig;
  let tls;
  try {
    config = loadConfig(process.env);
    tls = readTlsMaterial(config.tls);
  } catch (error) {
    exitOnConfigError(program, error);
  }
  const buildInfo = readBuildInfo();
  const logger = createLogger({ service, version: buildInfo.version, level: config.logLevel });
  warnAboutRiskySettings(config, logger);
  // As PID 1 in a container a process has no default SIGTERM handling: without this, a stop while
  // it waits for Postgres or NATS is ignored until the kill. Each migration runs in a transaction,
  // so one cut short is rolled back.
  const stopWhileStarting = (signal: NodeJS.Signals) => {
    logger.info({ signal }, 'stopped while starting');
    process.exit(0);
  };
  process.once('SIGTERM', stopWhileStarting);
  process.once('SIGINT', stopWhileStarting);
  try {
    const outbound = outboundTlsOptions(config.outboundTls, logger);
    await migrateService(service, config, logger);
    const metrics = new Metrics(service);
    const bus = await connectNatsBus(config, program, outbound, busHooks(logger, metrics));
    const app = await createCertlaneApp(
      {
        config,
        logger,
        bus,
        metrics,
        readiness: new ReadinessRegistry(),
        buildInfo,
        tls,
      },
      modules,
    );
    await app.listen(config.port, config.listenAddress);
    reloadTlsOnSighup(app.getHttpServer() as HttpsServer, config.tls, logger);
    logger.info({ port: config.port, auth_type: config.auth.type }, `${program} listening (TLS 1.3)`);
    const shutdown = async (signal: string) => {
      logger.info({ signal }, 'shutting down');
      await app.close();
      await bus.close();
      process.exit(0);
    };
    process.off('SIGTERM', stopWhileStarting);
    process.off('SIGINT', stopWhileStarting);
    process.once('SIGTERM', () => void shutdown('SIGTERM'));
    process.once('SIGINT', () => void shutdown('SIGINT'));
  } catch (error) {
    if (error instanceof ConfigError) exitOnConfigError(program, error);
    logger.fatal({ err: error }, 'startup failed');
    await new Promise((resolve) => setTimeout(resolve, 100));
    process.exit(1);
  }
}
