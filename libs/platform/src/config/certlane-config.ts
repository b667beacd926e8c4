import { NamedApiKey } from './named-keys';

export const AUTH_TYPES = ['api-key', 'oidc', 'none'] as const;
export type AuthType = (typeof AUTH_TYPES)[number];

export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** The validated configuration of one process. Built only by loadConfig. */
export interface CertlaneConfig {
  port: number;
  listenAddress: string;
  tls: { certPath: string; keyPath: string };
  outboundTls: { caBundlePath?: string; insecureSkipVerify: boolean };
  database: { url: string; poolSize: number };
  nats: { servers: string[]; namespace?: string; requestTimeoutMs: number };
  auth: { type: AuthType; secret?: string; namedKeys: NamedApiKey[] };
  demoModeAck: boolean;
  demoSeed: boolean;
  configEncryptionKey: string;
  corsOrigins: string[];
  bootstrapToken?: string;
  logLevel: LogLevel;
  maxRequestBodyBytes: number;
  migrationsDir?: string;
  unknownVariables: string[];
}
