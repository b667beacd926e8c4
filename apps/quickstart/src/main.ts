import 'reflect-metadata';
import type { Server as HttpsServer } from 'node:https';
import { isAbsolute, relative, resolve } from 'node:path';
import { ApiGatewayModule } from '@certlane/api-gateway';
import { AuthModule } from '@certlane/auth';
import { SERVICE_NAMES } from '@certlane/contracts';
import { DeploymentDispatchModule } from '@certlane/deployment-dispatch';
import { HealthMonitorModule } from '@certlane/health-monitor';
import { IssuanceModule } from '@certlane/issuance';
import { NotifierModule } from '@certlane/notifier';
import {
  busHooks,
  ConfigError,
  connectNatsBus,
  createCertlaneApp,
  createLogger,
  exitOnConfigError,
  InProcessBus,
  loadConfig,
  MessageBus,
  Metrics,
  migrateService,
  outboundTlsOptions,
  outboxToken,
  parseInteger,
  postgresConnection,
  readBuildInfo,
  ReadinessRegistry,
  readTlsMaterial,
  reloadTlsOnSighup,
  ServiceOutbox,
  warnAboutRiskySettings,
} from '@certlane/platform';
import { ProtocolFrontendsModule } from '@certlane/protocol-frontends';
import { RevocationModule } from '@certlane/revocation';
import { ensureDatabase, startEmbeddedPostgres } from './database';
import { applyDefaults, openDataDir } from './data-dir';
import { explainListenFailure } from './listen-failure';
import { nextSteps } from './next-steps';
import { localPublicOrigin } from './public-origin';
import { stopListening } from './stop-listening';

const PROGRAM = 'certlane';
/** How long a stop waits for the in-process consumers to handle what was published. */
const SHUTDOWN_DRAIN_MS = 15_000;
/** How long a stop waits for the requests in flight to be answered. */
const LISTENER_CLOSE_MS = 10_000;

/**
 * `npm start`: the whole system in one process on embedded defaults: embedded Postgres, the
 * in-process bus, generated secrets and a self-signed certificate in SERVICE_DATA_DIR. Any
 * SERVICE_* variable set in the environment wins over the generated value; setting
 * SERVICE_DATABASE_URL / SERVICE_NATS_URL uses real servers instead of the embedded ones.
 */
async function main(): Promise<void> {
  const env = process.env;
  const dataDir = await openDataDir(env.SERVICE_DATA_DIR || '.certlane-data').catch((error: unknown) =>
    exitOnConfigError(PROGRAM, error),
  );
  const useEmbeddedPostgres = !env.SERVICE_DATABASE_URL;
  const useNats = !!env.SERVICE_NATS_URL;
  applyDefaults(env, {
    SERVICE_TLS_CERT_PATH: dataDir.certPath,
    SERVICE_TLS_KEY_PATH: dataDir.keyPath,
    SERVICE_AUTH_SECRET: dataDir.secrets.auth_secret,
    SERVICE_CONFIG_ENCRYPTION_KEY: dataDir.secrets.config_encryption_key,
    SERVICE_BOOTSTRAP_TOKEN: dataDir.secrets.bootstrap_token,
    SERVICE_REVOCATION_BASE_URL: localPublicOrigin(env),
    SERVICE_DATABASE_POOL_SIZE: '4',
  });

  let config;
  let tls;
  try {
    config = loadConfig(env);
    tls = readTlsMaterial(config.tls);
  } catch (error) {
    exitOnConfigError(PROGRAM, error);
  }
  const buildInfo = readBuildInfo();
  const logger = createLogger({ service: 'quickstart', version: buildInfo.version, level: config.logLevel });
  warnAboutRiskySettings(config, logger);
  let outbound;
  try {
    outbound = outboundTlsOptions(config.outboundTls, logger);
  } catch (error) {
    exitOnConfigError(PROGRAM, error);
  }

  let embeddedPort = 0;
  try {
    embeddedPort = parseInteger(
      'SERVICE_EMBEDDED_POSTGRES_PORT',
      env.SERVICE_EMBEDDED_POSTGRES_PORT || '54329',
      1,
      65535,
    );
  } catch (error) {
    exitOnConfigError(PROGRAM, error);
  }
  // The quick start owns SIGINT and SIGTERM from here on (ADR 0080): while it starts, a stop exits
  // at once (an embedded Postgres already running gets a fast shutdown from its exit hook); once it
  // listens, a stop drains, closes and stops Postgres last. A second signal does not wait.
  let shutdown: (() => Promise<void>) | undefined = undefined;
  let stopping = false;
  const onStopSignal = (signal: NodeJS.Signals) => {
    if (stopping || !shutdown) {
      process.stderr.write(
        `${PROGRAM}: ${stopping ? 'stopped before the shutdown finished' : 'stopped while starting'} (${signal})\n`,
      );
      process.exit(stopping ? 1 : 0);
    }
    stopping = true;
    void shutdown();
  };
  process.on('SIGINT', onStopSignal);
  process.on('SIGTERM', onStopSignal);

  const embedded = useEmbeddedPostgres
    ? await startEmbeddedPostgres(dataDir.root, embeddedPort, dataDir.secrets.postgres_password).catch(
        (error: unknown) => exitOnConfigError(PROGRAM, error),
      )
    : undefined;
  if (!embedded) await ensureDatabase(postgresConnection(config.database.url, outbound));
  if (embedded) config = { ...config, database: { ...config.database, url: embedded.url } };

  for (const service of SERVICE_NAMES) await migrateService(service, config, logger);

  const metrics = new Metrics('quickstart');
  const hooks = busHooks(logger, metrics);
  const bus: MessageBus = useNats
    ? await connectNatsBus(config, PROGRAM, outbound, hooks)
    : new InProcessBus({ requestTimeoutMs: config.nats.requestTimeoutMs, ...hooks });

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
    [
      ApiGatewayModule.forRoot(),
      AuthModule.forRoot(),
      IssuanceModule.forRoot(),
      DeploymentDispatchModule.forRoot(),
      RevocationModule.forRoot(),
      ProtocolFrontendsModule.forRoot(),
      NotifierModule.forRoot(),
      HealthMonitorModule.forRoot(),
    ],
  );
  await app.listen(config.port, config.listenAddress).catch((error: unknown) => {
    const reason = explainListenFailure(error, config.listenAddress, config.port);
    if (reason) exitOnConfigError(PROGRAM, new ConfigError(reason));
    throw error;
  });
  reloadTlsOnSighup(app.getHttpServer() as HttpsServer, config.tls, logger);

  shutdown = async () => {
    // In order (ADR 0080): no new requests, and the ones in flight answered; then the events they
    // published handled; then the services closed; the embedded Postgres last.
    await stopListening(app.getHttpServer() as HttpsServer, LISTENER_CLOSE_MS);
    // The in-process bus keeps its events in memory: what its consumers have not handled yet
    // is handled before the services (and their database connections) stop. Then the outbox
    // relays stop (each ends its pass in flight), and what they published last is handled too:
    // nothing is published after the last drain, and rows written meanwhile stay in the outbox
    // for the next start to relay.
    if (bus instanceof InProcessBus) {
      const deadline = Date.now() + SHUTDOWN_DRAIN_MS;
      let drained = await bus.drain(SHUTDOWN_DRAIN_MS);
      await stopOutboxRelays(app);
      if (drained) drained = await bus.drain(Math.max(0, deadline - Date.now()));
      if (!drained) {
        logger.warn(
          { waited_ms: SHUTDOWN_DRAIN_MS },
          'stopping with events the in-process consumers have not handled; they are lost',
        );
      }
    }
    await app.close();
    await bus.close();
    await embedded?.stop();
    process.exit(0);
  };

  const secrets = shownPath(dataDir.secretsFile);
  const cert = shownPath(config.tls.certPath);
  const keyCommand =
    env.SERVICE_AUTH_SECRET === dataDir.secrets.auth_secret
      ? `$(node -p "require('${isAbsolute(secrets) ? secrets : `./${secrets}`}').auth_secret")`
      : '$SERVICE_AUTH_SECRET';
  process.stdout.write(
    nextSteps({
      version: buildInfo.version,
      port: config.port,
      keyCommand,
      secretsFile: secrets,
      certFile: cert,
      database: embedded
        ? `embedded Postgres in ${shownPath(dataDir.root)}/postgres`
        : 'SERVICE_DATABASE_URL',
      bus: useNats ? 'NATS at SERVICE_NATS_URL' : 'in-process',
      authType: config.auth.type,
      keygenMode: config.keygenMode,
    }),
  );
}

main().catch((error: unknown) => {
  process.stderr.write(
    `${PROGRAM}: startup failed: ${error instanceof Error ? error.stack : String(error)}\n`,
  );
  process.exit(1);
});

/** A path as the user types it: relative to the working directory when inside it, else absolute. */
function shownPath(path: string): string {
  const inside = relative(process.cwd(), path);
  return inside && !inside.startsWith('..') && !isAbsolute(inside) ? inside : resolve(path);
}

/** Stops every service's outbox relay, each after its pass in flight (a service without one is skipped). */
async function stopOutboxRelays(app: {
  get(token: string, options: { strict: false }): unknown;
}): Promise<void> {
  for (const service of SERVICE_NAMES) {
    let outbox: ServiceOutbox | undefined;
    try {
      outbox = app.get(outboxToken(service), { strict: false }) as ServiceOutbox;
    } catch {
      continue;
    }
    await outbox.relay.stop();
  }
}
