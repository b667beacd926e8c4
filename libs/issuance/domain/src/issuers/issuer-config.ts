import {
  CA_KEY_ALGORITHMS,
  hasUrlCredentials,
  hideUrlCredentials,
  IssuerType,
  REDACTED,
} from '@certlane/contracts';

/** One config key of an issuer type. */
interface FieldSpec {
  type: 'string' | 'https_url' | 'http_url' | 'integer' | 'boolean' | 'command' | 'enum';
  required?: boolean;
  values?: readonly string[];
  min?: number;
  max?: number;
  /** What the setting means, for the API description (its forms, the CLI's and MCP's help). */
  description?: string;
}

/** What an issuer type can do; `local_ca`, `script` and `vault_pki` issue today (ADR 0022, 0082, 0083). */
export interface IssuerTypeSpec {
  fields: Record<string, FieldSpec>;
  implemented: boolean;
  capabilities: { crl: boolean; ocsp: boolean; revoke: boolean; issue: boolean };
}

const s = (required = false): FieldSpec => ({ type: 'string', required });
const url = (required = false): FieldSpec => ({ type: 'https_url', required });
const NONE = { crl: false, ocsp: false, revoke: false, issue: false };

/**
 * The config keys of the twelve issuer types (spec section 1). Secret-bearing keys are those whose
 * name contains password, secret, token or key (spec 2.12); they are redacted in every response.
 */
export const ISSUER_TYPE_SPECS: Record<IssuerType, IssuerTypeSpec> = {
  local_ca: {
    implemented: true,
    capabilities: { crl: true, ocsp: true, revoke: true, issue: true },
    fields: {
      default_validity_days: { type: 'integer', min: 1, max: 3650 },
      max_validity_days: { type: 'integer', min: 1, max: 3650 },
      ca_algorithm: { type: 'enum', values: CA_KEY_ALGORITHMS },
      organization: s(),
      // The static server of the files SERVICE_REVOCATION_PUBLISH_DIR holds (ADR 0038).
      publication_base_url: { type: 'http_url' },
    },
  },
  acme: {
    implemented: true,
    // The CA publishes the CRL and OCSP of what it issues (ADR 0084).
    capabilities: { crl: false, ocsp: false, revoke: true, issue: true },
    fields: {
      directory_url: { ...url(true), description: "The CA's ACME directory (RFC 8555 7.1.1)." },
      email: { ...s(true), description: "The account's contact (mailto:)." },
      eab_kid: {
        ...s(),
        description: 'External account binding key id (RFC 8555 7.3.4), when the CA requires one.',
      },
      eab_hmac_key: {
        ...s(),
        description: 'External account binding MAC key, base64url, as the CA gave it.',
      },
      challenge_type: {
        type: 'enum',
        values: ['http-01', 'dns-01', 'dns-persist-01'],
        description:
          'dns-persist-01 (default): a standing _validation-persist record naming the CA and the account (the issuer test shows the account URL); dns-01: TXT records written with RFC 2136 (needs dns_update_server and dns_zone); http-01 is not supported yet (501).',
      },
      profile: {
        ...s(),
        description: "The CA's certificate profile (draft-ietf-acme-profiles) every order names.",
      },
      dns_update_server: {
        ...s(),
        description:
          'dns-01: the primary DNS server that takes RFC 2136 updates, host[:port] (port 53 by default).',
      },
      dns_zone: { ...s(), description: 'dns-01: the zone the _acme-challenge records are written to.' },
      tsig_name: { ...s(), description: 'dns-01: the TSIG key name updates are signed with (RFC 8945).' },
      tsig_algorithm: {
        type: 'enum',
        values: ['hmac-sha256', 'hmac-sha512'],
        description: 'Default hmac-sha256.',
      },
      tsig_secret: { ...s(), description: 'dns-01: the TSIG secret, base64 (as tsig-keygen prints it).' },
    },
  },
  vault_pki: {
    implemented: true,
    // Vault publishes the CRL and OCSP of what it signs itself.
    capabilities: { crl: false, ocsp: false, revoke: true, issue: true },
    fields: {
      address: {
        ...url(true),
        description:
          "Vault's (or OpenBao's) address, e.g. https://vault.example.com:8200; its TLS certificate is checked against the system roots and SERVICE_SERVER_CA_BUNDLE_PATH (ADR 0083).",
      },
      mount: { ...s(true), description: 'The path of the PKI secrets engine, e.g. pki or pki_int.' },
      role: { ...s(true), description: 'The role CSRs are signed with (POST /v1/<mount>/sign/<role>).' },
      token: {
        ...s(true),
        description:
          'A token whose policy allows update on <mount>/sign/<role> and <mount>/revoke; sent only to address, in X-Vault-Token.',
      },
      namespace: { ...s(), description: 'Vault Enterprise or HCP namespace (X-Vault-Namespace).' },
    },
  },
  aws_private_ca: {
    implemented: false,
    capabilities: NONE,
    fields: {
      region: s(true),
      ca_arn: s(true),
      template_arn: s(),
      access_key_id: s(),
      secret_access_key: s(),
    },
  },
  google_cas: {
    implemented: false,
    capabilities: NONE,
    fields: { project: s(true), location: s(true), ca_pool: s(true), service_account_key: s() },
  },
  azure_key_vault: {
    implemented: false,
    capabilities: NONE,
    fields: {
      vault_url: url(true),
      tenant_id: s(true),
      client_id: s(true),
      client_secret: s(true),
      issuer_name: s(),
    },
  },
  digicert: {
    implemented: false,
    capabilities: NONE,
    fields: { api_key: s(true), product_name_id: s(true), organization_id: s(), base_url: url() },
  },
  sectigo: {
    implemented: false,
    capabilities: NONE,
    fields: {
      base_url: url(true),
      customer_uri: s(true),
      login: s(true),
      password: s(true),
      cert_type: s(),
    },
  },
  globalsign: {
    implemented: false,
    capabilities: NONE,
    fields: { api_key: s(true), api_secret: s(true), product_code: s(true), base_url: url() },
  },
  entrust: {
    implemented: false,
    capabilities: NONE,
    fields: { base_url: url(true), username: s(true), password: s(true), ca_id: s(true) },
  },
  adcs: {
    implemented: false,
    capabilities: NONE,
    fields: {
      host: s(true),
      ca_name: s(true),
      template: s(true),
      username: s(true),
      password: s(true),
    },
  },
  script: {
    implemented: true,
    // revoke: only with a revoke_command (issuerCapabilities).
    capabilities: { crl: false, ocsp: false, revoke: true, issue: true },
    fields: {
      issue_command: {
        type: 'command',
        required: true,
        description:
          'The absolute path of a program in SERVICE_ISSUER_SCRIPTS_DIR, then its arguments. It reads the CSR (PEM) on standard input, sees the request as CERTLANE_* variables, and prints the certificate, then its chain, in PEM; exit 75 when the CA is unavailable (ADR 0082).',
      },
      revoke_command: {
        type: 'command',
        description:
          'Like issue_command; told CERTLANE_SERIAL and CERTLANE_REASON. Without it, revocations are recorded in Certlane only.',
      },
      timeout_seconds: {
        type: 'integer',
        min: 1,
        max: 3600,
        description: 'Default 60. The command and what it started are killed at this time.',
      },
    },
  },
};

/** A config key that carries a secret (spec 2.12): its name contains password, secret, token or key. */
export function isSecretKey(name: string): boolean {
  return /password|secret|token|key/i.test(name);
}

/**
 * The config as shown to users: every secret-bearing value replaced by `********`, and the
 * credentials of a URL stored before validation refused them (`https://********@host/...`).
 */
export function redactConfig(config: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(config).map(([name, value]) => [
      name,
      isSecretKey(name) ? REDACTED : typeof value === 'string' ? hideUrlCredentials(value) : value,
    ]),
  );
}

/** Characters a shell would interpret: refused in connector commands (spec 2.12). */
const SHELL_METACHARACTERS = /[;&|`$<>(){}[\]\\!*?~#'"\n\r]/;
const MAX_STRING = 4096;

export interface ConfigProblem {
  field: string;
  message: string;
}

/** What an issuer can do, as its DTO shows it: a `script` issuer revokes only with a revoke_command. */
export function issuerCapabilities(
  type: string,
  config: Record<string, unknown>,
): IssuerTypeSpec['capabilities'] {
  const spec = ISSUER_TYPE_SPECS[type as IssuerType];
  if (!spec) return NONE;
  if (type === 'script') return { ...spec.capabilities, revoke: !!config.revoke_command };
  return spec.capabilities;
}

/**
 * Why a command's program may not run from the scripts directory, or null: it must be an absolute
 * path inside `directory`, written without empty, `.` or `..` segments (an issuer is written
 * through the API; what it may run is the operator's choice of files, ADR 0082).
 */
export function commandOutsideDirectory(program: string, directory: string): string | null {
  const base = directory.replace(/\/+$/, '');
  if (!base.startsWith('/')) return 'SERVICE_ISSUER_SCRIPTS_DIR is not an absolute directory';
  if (!program.startsWith(`${base}/`)) return `its program must be a file in ${base}/`;
  const segments = program.slice(base.length + 1).split('/');
  if (segments.some((segment) => segment === '' || segment === '.' || segment === '..'))
    return `its program must be a file in ${base}/, named without empty, "." or ".." segments`;
  return null;
}

export interface IssuerConfigOptions {
  /** SERVICE_ISSUER_SCRIPTS_DIR: when given, command settings must run a program from it. */
  scriptsDirectory?: string;
}

/**
 * Checks `config` against its type: unknown keys, missing required keys, value types, https URLs,
 * shell metacharacters, commands outside the scripts directory. Returns the problems (empty when
 * valid). Secrets are never echoed.
 */
export function validateIssuerConfig(
  type: IssuerType,
  config: Record<string, unknown>,
  options: IssuerConfigOptions = {},
): ConfigProblem[] {
  const spec = ISSUER_TYPE_SPECS[type];
  const problems: ConfigProblem[] = [];
  for (const name of Object.keys(config)) {
    if (!(name in spec.fields))
      problems.push({ field: name, message: `config.${name} is not a ${type} setting` });
  }
  for (const [name, field] of Object.entries(spec.fields)) {
    const value = config[name];
    if (value === undefined || value === null || value === '') {
      if (field.required) problems.push({ field: name, message: `config.${name} is required for ${type}` });
      continue;
    }
    const problem =
      checkValue(name, field, value) ??
      (field.type === 'command' && options.scriptsDirectory !== undefined
        ? commandProblem(name, value as string, options.scriptsDirectory)
        : null);
    if (problem) problems.push({ field: name, message: problem });
  }
  const { default_validity_days: byDefault, max_validity_days: max } = config;
  if (typeof byDefault === 'number' && typeof max === 'number' && byDefault > max)
    problems.push({
      field: 'default_validity_days',
      message: `config.default_validity_days ${byDefault} exceeds config.max_validity_days ${max}`,
    });
  if (type === 'acme') problems.push(...acmeProblems(config));
  return problems;
}

/** `host`, `host:port` or `[v6]:port` (port 53 when none), or null when not that or the port is not 1..65535. */
export function dnsServerAddress(value: string): { host: string; port: number } | null {
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^\s:[\]]+))(?::(\d{1,5}))?$/.exec(value);
  if (!match) return null;
  const port = match[3] === undefined ? 53 : Number(match[3]);
  return port >= 1 && port <= 65535 ? { host: match[1] ?? match[2], port } : null;
}

/** What an `acme` issuer's challenge needs beside the fields' own rules (ADR 0084). */
function acmeProblems(config: Record<string, unknown>): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const given = (name: string) => typeof config[name] === 'string' && config[name] !== '';
  if (config.challenge_type === 'dns-01') {
    for (const name of ['dns_update_server', 'dns_zone'])
      if (!given(name))
        problems.push({ field: name, message: `config.${name} is required for the dns-01 challenge` });
  }
  if (given('dns_update_server') && !dnsServerAddress(config.dns_update_server as string))
    problems.push({
      field: 'dns_update_server',
      message: 'config.dns_update_server must be host[:port], the port 1..65535',
    });
  if (given('tsig_name') !== given('tsig_secret'))
    problems.push({
      field: given('tsig_name') ? 'tsig_secret' : 'tsig_name',
      message: 'config.tsig_name and config.tsig_secret go together',
    });
  if (given('eab_kid') !== given('eab_hmac_key'))
    problems.push({
      field: given('eab_kid') ? 'eab_hmac_key' : 'eab_kid',
      message: 'config.eab_kid and config.eab_hmac_key go together',
    });
  return problems;
}

function commandProblem(name: string, command: string, scriptsDirectory: string): string | null {
  const [program = ''] = command.split(' ').filter((part) => part !== '');
  const outside = commandOutsideDirectory(program, scriptsDirectory);
  return outside ? `config.${name}: ${outside}` : null;
}

function checkValue(name: string, field: FieldSpec, value: unknown): string | null {
  switch (field.type) {
    case 'integer':
      if (typeof value !== 'number' || !Number.isInteger(value)) return `config.${name} must be an integer`;
      if ((field.min !== undefined && value < field.min) || (field.max !== undefined && value > field.max))
        return `config.${name} must be between ${field.min} and ${field.max}`;
      return null;
    case 'boolean':
      return typeof value === 'boolean' ? null : `config.${name} must be true or false`;
    case 'enum':
      return typeof value === 'string' && field.values?.includes(value)
        ? null
        : `config.${name} must be one of ${field.values?.join(', ')}`;
    default:
      if (typeof value !== 'string') return `config.${name} must be a string`;
      if (value.length > MAX_STRING) return `config.${name} must be at most ${MAX_STRING} characters`;
      if (
        field.type === 'https_url' &&
        (!/^https:\/\/[^\s/?#]+(\/[^\s]*)?$/.test(value) || hasUrlCredentials(value))
      )
        return `config.${name} must be an https:// URL without credentials (they go in the credential settings)`;
      if (field.type === 'http_url' && !/^https?:\/\/[^\s/?#@]+(\/[^\s?#]*)?$/.test(value))
        return `config.${name} must be an http:// or https:// URL without credentials, query or fragment`;
      if (field.type === 'command' && SHELL_METACHARACTERS.test(value))
        return `config.${name} must not contain shell metacharacters`;
      return null;
  }
}

/**
 * PUT: a secret-bearing value sent back as `********` (what GET showed) keeps the stored secret;
 * any other value replaces it.
 */
export function mergeRedactedSecrets(
  stored: Record<string, unknown>,
  incoming: Record<string, unknown>,
): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(incoming).map(([name, value]) => [
      name,
      value === REDACTED && isSecretKey(name) && name in stored ? stored[name] : value,
    ]),
  );
}
