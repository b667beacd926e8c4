import { LoggerService } from '@nestjs/common';
import pino, { DestinationStream, Logger } from 'pino';
import { LogLevel } from '../config/certlane-config';
import { redactText, redactValue } from './redact';

export type CertlaneLogger = Logger;

export interface LoggerOptions {
  service: string;
  version: string;
  level: LogLevel;
  destination?: DestinationStream;
}

/**
 * Structured JSON logs (one object per line) with service name and version on every line.
 * Secret-named fields and PEM private keys / bearer values inside text are redacted before
 * anything is written.
 */
export function createLogger(options: LoggerOptions): CertlaneLogger {
  const logger = pino(
    {
      level: options.level,
      base: { service: options.service, version: options.version, pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      messageKey: 'message',
      formatters: {
        level: (label) => ({ level: label }),
        log: (object) => redactValue(object) as Record<string, unknown>,
      },
      // formatters.log already turned errors into redacted {type, message, stack}.
      serializers: { err: (value: unknown) => value },
      hooks: {
        logMethod(args, method) {
          const scrubbed: unknown[] = args.map((arg, index) =>
            typeof arg === 'string' ? redactText(arg) : index > 0 ? redactValue(arg) : arg,
          );
          // Without a message pino copies the error's own message, after this hook: supply it scrubbed.
          const first = scrubbed[0] as { err?: unknown } | undefined;
          const error = first instanceof Error ? first : first?.err instanceof Error ? first.err : undefined;
          if (error && typeof scrubbed[1] !== 'string') scrubbed.splice(1, 0, redactText(error.message));
          return method.apply(this, scrubbed as Parameters<typeof method>);
        },
      },
    },
    options.destination ?? pino.destination({ fd: 1, sync: false }),
  );
  return withRedactedBindings(logger);
}

/** pino does not run formatters over child bindings, so they are redacted when the child is made. */
function withRedactedBindings(logger: CertlaneLogger): CertlaneLogger {
  const child = logger.child.bind(logger) as unknown as (
    bindings: pino.Bindings,
    options?: object,
  ) => CertlaneLogger;
  const redactedChild = (bindings: pino.Bindings, options?: object) =>
    withRedactedBindings(child(redactValue(bindings) as pino.Bindings, options));
  logger.child = redactedChild as unknown as typeof logger.child;
  return logger;
}

/** Routes NestJS's own log calls into the service's pino logger. */
export class NestPinoLogger implements LoggerService {
  constructor(private readonly logger: CertlaneLogger) {}

  // Nest's own "log" level is start-up chatter (modules, routes): debug for us.
  log(message: unknown, context?: string): void {
    this.logger.debug({ context }, String(message));
  }
  error(message: unknown, trace?: string, context?: string): void {
    this.logger.error({ context, trace }, String(message));
  }
  warn(message: unknown, context?: string): void {
    this.logger.warn({ context }, String(message));
  }
  debug(message: unknown, context?: string): void {
    this.logger.debug({ context }, String(message));
  }
  verbose(message: unknown, context?: string): void {
    this.logger.trace({ context }, String(message));
  }
}
