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
  return pino(
    {
      level: options.level,
      base: { service: options.service, version: options.version, pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      messageKey: 'message',
      formatters: {
        level: (label) => ({ level: label }),
        log: (object) => redactValue(object) as Record<string, unknown>,
      },
      hooks: {
        logMethod(args, method) {
          const scrubbed = args.map((arg) => (typeof arg === 'string' ? redactText(arg) : arg));
          return method.apply(this, scrubbed as Parameters<typeof method>);
        },
      },
    },
    options.destination ?? pino.destination({ fd: 1, sync: false }),
  );
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
