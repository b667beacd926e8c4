import type { LogLevel } from './config';

const ORDER: Record<LogLevel, number> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60 };

/** JSON lines on stdout, like the services' logs. Never give it a key or a secret. */
export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

export function jsonLogger(
  level: LogLevel,
  write: (line: string) => void = (line) => process.stdout.write(line),
): Logger {
  const at =
    (name: LogLevel) =>
    (message: string, fields: Record<string, unknown> = {}) => {
      if (ORDER[name] < ORDER[level]) return;
      write(
        `${JSON.stringify({ level: name, time: new Date().toISOString(), name: 'certlane-agent', msg: message, ...fields })}\n`,
      );
    };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}
