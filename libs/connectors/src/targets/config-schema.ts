/**
 * The config keys of a target kind, as ADR 0026 lists them (deployment-dispatch validates the
 * same keys when a target is saved; the agent checks again before deploying, because the
 * connectors are shared code that cannot import that domain lib).
 */
export interface ConnectorFieldSpec {
  type: 'string' | 'path' | 'command' | 'enum';
  required?: boolean;
  values?: readonly string[];
}

export type ConnectorConfigSchema = Readonly<Record<string, ConnectorFieldSpec>>;

const command: ConnectorFieldSpec = { type: 'command' };
export const COMMAND_FIELDS = {
  reload_command: command,
  validate_command: command,
  restart_command: command,
} as const;

/** cert_path, key_path, chain_path, file_mode and the three commands (nginx, apache, ...). */
export const PEM_FILE_FIELDS = {
  cert_path: { type: 'path', required: true },
  key_path: { type: 'path', required: true },
  chain_path: { type: 'path' },
  file_mode: { type: 'enum', values: ['0600', '0640', '0644'] },
  ...COMMAND_FIELDS,
} as const satisfies ConnectorConfigSchema;

export class TargetConfigError extends Error {
  constructor(readonly fields: string[]) {
    super(`invalid target config: ${fields.join(', ')}`);
    this.name = 'TargetConfigError';
  }
}

/** Checks a config against a schema (unknown keys, required keys, types); throws TargetConfigError. */
export function checkConfig(schema: ConnectorConfigSchema, config: Readonly<Record<string, unknown>>): void {
  const bad = new Set<string>();
  for (const [name, value] of Object.entries(config)) {
    const field = schema[name];
    if (!field) {
      bad.add(name);
      continue;
    }
    if (value === null || value === undefined) continue;
    if (typeof value !== 'string' || value.length === 0) {
      bad.add(name);
      continue;
    }
    if (
      field.type === 'path' &&
      (!value.startsWith('/') || value.split('/').includes('..') || /[\u0000-\u001f]/.test(value))
    ) {
      bad.add(name);
    }
    if (field.type === 'enum' && !field.values?.includes(value)) bad.add(name);
  }
  for (const [name, field] of Object.entries(schema)) {
    if (field.required && (config[name] === undefined || config[name] === null || config[name] === ''))
      bad.add(name);
  }
  if (bad.size > 0) throw new TargetConfigError([...bad].sort());
}

export function optionalString(config: Readonly<Record<string, unknown>>, name: string): string | undefined {
  const value = config[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

export function requiredString(config: Readonly<Record<string, unknown>>, name: string): string {
  const value = optionalString(config, name);
  if (value === undefined) throw new TargetConfigError([name]);
  return value;
}

/** The mode of files holding the private key: `file_mode` (octal text), 0600 by default. */
export function keyFileMode(config: Readonly<Record<string, unknown>>): number {
  const value = optionalString(config, 'file_mode');
  return value ? parseInt(value, 8) : 0o600;
}

/** Certificates and chains are public: 0644. */
export const CERTIFICATE_FILE_MODE = 0o644;
