import { hasUrlCredentials, hideUrlCredentials, TARGET_TYPES, TargetType } from '@certlane/contracts';
import { commandProblem } from './command';

/** What a redacted secret-bearing config value reads as in responses (as for issuers). */
export const REDACTED_VALUE = '********';

/** One config key of a target kind. */
export interface TargetFieldSpec {
  type: 'string' | 'path' | 'https_url' | 'integer' | 'boolean' | 'command' | 'enum' | 'fingerprint';
  required?: boolean;
  values?: readonly string[];
  min?: number;
  max?: number;
}

export interface TargetTypeSpec {
  /** Deployed by the agent that owns the target: `agent_id` is required. */
  agentRun: boolean;
  fields: Record<string, TargetFieldSpec>;
}

const path = (required = false): TargetFieldSpec => ({ type: 'path', required });
const str = (required = false): TargetFieldSpec => ({ type: 'string', required });
const command: TargetFieldSpec = { type: 'command' };
const commands = { reload_command: command, validate_command: command, restart_command: command };
/** The files of a PEM-based server: certificate, key, optional chain, the three commands. */
const pemFiles = (keyRequired = true) => ({
  cert_path: path(true),
  key_path: path(keyRequired),
  chain_path: path(),
  file_mode: { type: 'enum', values: ['0600', '0640', '0644'] } as TargetFieldSpec,
  ...commands,
});

/**
 * The config keys of the fifteen target kinds (ADR 0026). Secret-bearing keys are those whose
 * name contains password, secret, token or key (spec 2.12): redacted in every response.
 * Commands are checked by `commandProblem` and later run as argv, without a shell.
 */
export const TARGET_TYPE_SPECS: Record<TargetType, TargetTypeSpec> = {
  nginx: { agentRun: true, fields: pemFiles() },
  apache: { agentRun: true, fields: pemFiles() },
  haproxy: {
    agentRun: true,
    // HAProxy reads one PEM holding certificate, chain and key.
    fields: { pem_path: path(true), ...commands },
  },
  caddy: { agentRun: true, fields: pemFiles() },
  traefik: { agentRun: true, fields: { ...pemFiles(), dynamic_config_path: path() } },
  envoy: { agentRun: true, fields: { ...pemFiles(), sds_path: path() } },
  postfix: { agentRun: true, fields: pemFiles() },
  dovecot: { agentRun: true, fields: pemFiles() },
  java_keystore: {
    agentRun: true,
    fields: {
      store_path: path(true),
      store_password: str(true),
      alias: str(true),
      store_type: { type: 'enum', values: ['PKCS12', 'JKS'] },
      ...commands,
    },
  },
  iis: {
    agentRun: true,
    fields: {
      site_name: str(true),
      binding_port: { type: 'integer', min: 1, max: 65535 },
      store_name: { type: 'enum', values: ['My', 'WebHosting'] },
    },
  },
  ssh: {
    agentRun: false,
    fields: {
      host: str(true),
      port: { type: 'integer', min: 1, max: 65535 },
      username: str(true),
      auth_method: { type: 'enum', values: ['key', 'password'], required: true },
      private_key: str(),
      password: str(),
      host_key_fingerprint: { type: 'fingerprint', required: true },
      ...pemFiles(),
    },
  },
  f5: {
    agentRun: false,
    fields: {
      management_url: { type: 'https_url', required: true },
      username: str(true),
      password: str(true),
      partition: str(),
      ssl_profile: str(true),
    },
  },
  kubernetes_secret: {
    agentRun: false,
    fields: {
      api_server_url: { type: 'https_url' },
      namespace: str(true),
      secret_name: str(true),
      service_account_token: str(),
    },
  },
  aws_acm: {
    agentRun: false,
    fields: { region: str(true), certificate_arn: str(), access_key_id: str(), secret_access_key: str() },
  },
  azure_key_vault: {
    agentRun: false,
    fields: {
      vault_url: { type: 'https_url', required: true },
      certificate_name: str(true),
      tenant_id: str(),
      client_id: str(),
      client_secret: str(),
    },
  },
};

export interface TargetConfigProblem {
  field: string;
  message: string;
}

const MAX_STRING = 4096;

function fieldProblem(name: string, spec: TargetFieldSpec, value: unknown): string | null {
  const label = `config.${name}`;
  switch (spec.type) {
    case 'integer':
      if (!Number.isInteger(value)) return `${label} must be an integer`;
      if (
        (spec.min !== undefined && (value as number) < spec.min) ||
        (spec.max !== undefined && (value as number) > spec.max)
      ) {
        return `${label} must be between ${spec.min} and ${spec.max}`;
      }
      return null;
    case 'boolean':
      return typeof value === 'boolean' ? null : `${label} must be a boolean`;
    case 'enum':
      return typeof value === 'string' && spec.values?.includes(value)
        ? null
        : `${label} must be one of ${spec.values?.join(', ')}`;
    default:
      break;
  }
  if (typeof value !== 'string') return `${label} must be a string`;
  if (value.length === 0 || value.length > MAX_STRING)
    return `${label} must be 1 to ${MAX_STRING} characters`;
  switch (spec.type) {
    case 'path':
      // Absolute, no NUL or other control characters, no `..` segment.
      if (!value.startsWith('/') || /[\u0000-\u001f]/.test(value) || value.split('/').includes('..')) {
        return `${label} must be an absolute path without ".." segments`;
      }
      return null;
    case 'https_url':
      return /^https:\/\/[^\s/]+/.test(value) && !hasUrlCredentials(value)
        ? null
        : `${label} must be an https:// URL without credentials (they go in the credential settings)`;
    case 'fingerprint':
      return /^SHA256:[A-Za-z0-9+/]{43}=?$/.test(value)
        ? null
        : `${label} must be an OpenSSH SHA256 fingerprint (SHA256:<base64>)`;
    case 'command': {
      const problem = commandProblem(value);
      if (problem === 'metacharacter' || problem === 'control_character') {
        return `${label} must not contain shell metacharacters`;
      }
      return problem ? `${label} must be a command of at most 1024 characters` : null;
    }
    default:
      return null;
  }
}

/**
 * Problems of a config for a kind: unknown keys, missing required keys, wrong types, shell
 * metacharacters in commands, and the rules across keys (ssh auth). Messages never echo a value.
 */
export function validateTargetConfig(
  type: TargetType,
  config: Record<string, unknown>,
): TargetConfigProblem[] {
  const spec = TARGET_TYPE_SPECS[type];
  const problems: TargetConfigProblem[] = [];
  for (const [name, value] of Object.entries(config)) {
    const field = spec.fields[name];
    if (!field) {
      problems.push({ field: name, message: `config.${name} is not a setting of ${type}` });
      continue;
    }
    const problem = value === null || value === undefined ? null : fieldProblem(name, field, value);
    if (problem) problems.push({ field: name, message: problem });
  }
  for (const [name, field] of Object.entries(spec.fields)) {
    if (field.required && (config[name] === undefined || config[name] === null || config[name] === '')) {
      problems.push({ field: name, message: `config.${name} is required for ${type}` });
    }
  }
  if (type === 'ssh') {
    const method = config.auth_method;
    if (method === 'key' && !config.private_key) {
      problems.push({
        field: 'private_key',
        message: 'config.private_key is required when auth_method is key',
      });
    }
    if (method === 'password' && !config.password) {
      problems.push({
        field: 'password',
        message: 'config.password is required when auth_method is password',
      });
    }
  }
  return problems;
}

export function isTargetType(value: string): value is TargetType {
  return (TARGET_TYPES as readonly string[]).includes(value);
}

/** A config key that carries a secret (spec 2.12): its name contains password, secret, token or key. */
export function isSecretConfigKey(name: string): boolean {
  return /password|secret|token|key/i.test(name);
}

/**
 * The config as shown: every secret-bearing value (present and not empty) replaced by `********`,
 * and the credentials of a URL stored before they were refused.
 */
export function redactTargetConfig(config: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(config).map(([name, value]) => [
      name,
      isSecretConfigKey(name) && value !== null && value !== undefined && value !== ''
        ? REDACTED_VALUE
        : typeof value === 'string'
          ? hideUrlCredentials(value)
          : value,
    ]),
  );
}

/**
 * A PUT's config over the stored one: the sent config replaces the stored config, except that a
 * secret-bearing key sent back as `********` keeps its stored value (a client can round-trip
 * what GET returned without knowing the secret). A redacted value for a key with no stored
 * secret stays `********` and fails no check; the caller decides (we refuse it, see below).
 */
export function mergeRedactedTargetSecrets(
  stored: Record<string, unknown>,
  sent: Record<string, unknown>,
): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(sent).map(([name, value]) => [
      name,
      value === REDACTED_VALUE && isSecretConfigKey(name) && name in stored ? stored[name] : value,
    ]),
  );
}

/** Keys still holding `********` after the merge: redacted values with nothing stored behind them. */
export function unresolvedRedactions(config: Record<string, unknown>): string[] {
  return Object.entries(config)
    .filter(([name, value]) => value === REDACTED_VALUE && isSecretConfigKey(name))
    .map(([name]) => name);
}
