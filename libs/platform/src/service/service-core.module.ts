import {
  DynamicModule,
  Inject,
  Injectable,
  Module,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import { getDataSourceToken, TypeOrmModule } from '@nestjs/typeorm';
import { hostname } from 'node:os';
import { pingSubject, ServiceName } from '@certlane/contracts';
import { DataSource, EntitySchema } from 'typeorm';
import { CertlaneConfig } from '../config/certlane-config';
import { ListenedClient } from '../database/listened-client';
import { postgresConnection } from '../database/postgres-connection';
import { schemaFor } from '../database/schema-name';
import { outboundTlsOptions } from '../tls/outbound-tls';
import { CertlaneLogger } from '../logging/logger';
import { MessageBus } from '../messaging/message-bus';
import { OutboxRelay } from '../messaging/outbox-relay';
import { ReadinessRegistry } from '../observability/readiness';
import { ServiceOutbox } from './service-outbox';
import { CERTLANE_CONFIG, LOGGER, MESSAGE_BUS, outboxToken, READINESS } from './tokens';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type EntityClass = (new (...args: any[]) => object) | EntitySchema<any>;

export interface ServiceCoreOptions {
  service: ServiceName;
  entities?: EntityClass[];
}

/**
 * What every service gets for its own schema: a named TypeORM DataSource (`synchronize` off;
 * migrations ran before the app was created), the outbox and its relay, a readiness check of
 * the database, and an answer to `<service>.v1.ping`.
 */
@Module({})
export class ServiceCoreModule {
  static forService(options: ServiceCoreOptions): DynamicModule {
    const { service } = options;
    const schema = schemaFor(service);

    @Injectable()
    class ServiceLifecycle implements OnApplicationBootstrap, OnApplicationShutdown {
      constructor(
        @Inject(getDataSourceToken(service)) private readonly dataSource: DataSource,
        @Inject(outboxToken(service)) private readonly outbox: ServiceOutbox,
        @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
        @Inject(READINESS) private readonly readiness: ReadinessRegistry,
      ) {}

      async onApplicationBootstrap(): Promise<void> {
        this.readiness.add(`database:${schema}`, async () => {
          await this.dataSource.query('SELECT 1');
          return true;
        });
        if (service !== 'api-gateway') {
          const instance = `${hostname()}:${process.pid}`;
          await this.bus.handle(pingSubject(service), async () => ({ service, instance }));
        }
        this.outbox.relay.start();
      }

      async onApplicationShutdown(): Promise<void> {
        await this.outbox.relay.stop();
      }
    }
    Object.defineProperty(ServiceLifecycle, 'name', { value: `${schema}_ServiceLifecycle` });

    return {
      module: ServiceCoreModule,
      imports: [
        TypeOrmModule.forRootAsync({
          name: service,
          inject: [CERTLANE_CONFIG],
          useFactory: (config: CertlaneConfig) => {
            const connection = postgresConnection(
              config.database.url,
              outboundTlsOptions(config.outboundTls),
            );
            return {
              name: service,
              type: 'postgres' as const,
              url: connection.connectionString,
              ssl: connection.ssl ?? false,
              schema,
              entities: options.entities ?? [],
              synchronize: false,
              migrationsRun: false,
              applicationName: `certlane-${service}`,
              // Raw SQL in repositories and the outbox resolve unqualified names in the service's schema.
              // DateStyle ISO (Postgres's default, which node-postgres' date parsing already needs)
              // is pinned, since some reads format timestamp text themselves (certificate-page-json.ts).
              extra: {
                max: config.database.poolSize,
                Client: ListenedClient,
                options: `-c search_path=${schema},public -c DateStyle=ISO,MDY`,
              },
            };
          },
        }),
      ],
      providers: [
        {
          provide: outboxToken(service),
          inject: [getDataSourceToken(service), MESSAGE_BUS, LOGGER],
          useFactory: (dataSource: DataSource, bus: MessageBus, logger: CertlaneLogger) =>
            new ServiceOutbox(
              schema,
              new OutboxRelay(dataSource, bus, {
                schema,
                onError: (error) =>
                  logger.warn({ err: error, schema }, 'outbox relay: publish failed; will retry'),
              }),
              service,
            ),
        },
        ServiceLifecycle,
      ],
      exports: [outboxToken(service), TypeOrmModule],
    };
  }
}
