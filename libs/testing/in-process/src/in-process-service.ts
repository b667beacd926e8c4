import { DynamicModule, Module, Type } from '@nestjs/common';
import { Test, TestingModule } from '@nestjs/testing';
import { Client } from 'pg';
import pino from 'pino';
import { ServiceName } from '@certlane/contracts';
import {
  CertlaneConfig,
  InProcessBus,
  loadConfig,
  Metrics,
  migrateService,
  PlatformModule,
  ReadinessRegistry,
  schemaFor,
} from '@certlane/platform';
import { createTestDatabase, TestDatabase, validServiceEnv } from '@certlane/testing';

export interface InProcessServiceOptions {
  /** The services whose migrations run first, each on its own schema (e.g. ['issuance']). */
  services: ServiceName[];
  /** The feature modules to build, e.g. [IssuanceModule.forRoot()]. */
  modules: (Type | DynamicModule)[];
  /** SERVICE_* overrides on top of a valid test environment (the database URL is set here). */
  env?: Record<string, string | undefined>;
  /** Names the test database (certlane_<label>_<random>). */
  label?: string;
}

export interface InProcessService {
  /** The compiled and initialised Nest module: `module.get(SomeProvider)` for a provider. */
  module: TestingModule;
  /** The in-process bus the modules serve their subjects on: `bus.request('issuance.v1....', ...)`. */
  bus: InProcessBus;
  /** The loaded configuration the modules got. */
  config: CertlaneConfig;
  database: TestDatabase;
  /** A connected pg client whose search_path is the first service's schema. */
  sql: Client;
  /** Closes the modules, the bus and the client, then drops the database. */
  close(): Promise<void>;
}

/**
 * The middle test tier (ADR 0048): a service's feature modules built in this process on the
 * in-process bus over a fresh, migrated database, without HTTP, TLS or a spawned process. Bus
 * handlers and background loops start as in a real service (the Nest lifecycle runs); what a
 * test calls are the subjects of libs/contracts, as the gateway does.
 */
export async function startInProcessService(options: InProcessServiceOptions): Promise<InProcessService> {
  const database = await createTestDatabase(options.label ?? options.services.join(''));
  const opened: { module?: TestingModule; bus?: InProcessBus; sql?: Client } = {};
  const close = async () => {
    await opened.module?.close();
    await opened.bus?.close();
    await opened.sql?.end();
    await database.drop();
  };
  try {
    const config = loadConfig(
      validServiceEnv({ SERVICE_LOG_LEVEL: 'warn', ...options.env, SERVICE_DATABASE_URL: database.url }),
    );
    const logger = pino({ level: config.logLevel });
    for (const service of options.services) await migrateService(service, config, logger);

    const bus = new InProcessBus({
      requestTimeoutMs: config.nats.requestTimeoutMs,
      onUnexpected: (error) => logger.error({ err: error }, 'unexpected error in a bus handler'),
    });
    opened.bus = bus;
    const platform = PlatformModule.forRoot({
      config,
      logger,
      bus,
      metrics: new Metrics(options.services[0] ?? 'test'),
      readiness: new ReadinessRegistry(),
      buildInfo: { version: '0.0.0-test', commit: 'test', modified: 'false', build_time: 'test' },
    });
    @Module({ imports: [platform, ...options.modules] })
    class InProcessRootModule {}
    const module = await Test.createTestingModule({ imports: [InProcessRootModule] })
      .setLogger(new SilentNestLogger())
      .compile();
    opened.module = module;
    await module.init();

    const sql = new Client({
      connectionString: database.url,
      options: `-c search_path=${schemaFor(options.services[0] ?? 'public')}`,
    });
    opened.sql = sql;
    await sql.connect();
    return { module, bus, config, database, sql, close };
  } catch (error) {
    await close().catch(() => undefined);
    throw error;
  }
}

/** Nest's own boot chatter is noise in a test run; errors still surface as thrown exceptions. */
class SilentNestLogger {
  log(): void {}
  error(): void {}
  warn(): void {}
  debug(): void {}
  verbose(): void {}
}
