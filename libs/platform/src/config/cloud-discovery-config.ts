import { ConfigError } from './config-error';

/** Cloud secret-manager discovery (issue 23; ADR 0063): one account per provider sentinel. */
export interface CloudDiscoveryConfig {
  aws?: { region: string; accessKeyId: string; secretAccessKey: string; endpoint: string | null };
  azure?: {
    tenantId: string;
    clientId: string;
    clientSecret: string;
    vaultUrl: string;
    authorityUrl: string;
  };
  gcp?: { credentialsFile: string; project: string; endpoint: string };
}

const url = (name: string, raw: string): string => {
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} is not a URL`);
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    throw new ConfigError(`${name} must be an https:// URL`);
  }
  return raw.replace(/\/+$/, '');
};

/**
 * A provider is on when its first variable is set; then every variable it needs must be set too
 * (a half-configured provider stops the service at start rather than failing every run).
 */
export function loadCloudDiscoveryConfig(get: (name: string) => string | undefined): CloudDiscoveryConfig {
  const need = (names: string[]): string[] | undefined => {
    const values = names.map((name) => get(name)?.trim() ?? '');
    if (values.every((value) => value === '')) return undefined;
    const missing = names.filter((_, i) => values[i] === '');
    if (missing.length) throw new ConfigError(`${missing.join(', ')} must be set with ${names[0]}`);
    return values;
  };
  const config: CloudDiscoveryConfig = {};
  const aws = need([
    'SERVICE_DISCOVERY_AWS_REGION',
    'SERVICE_DISCOVERY_AWS_ACCESS_KEY_ID',
    'SERVICE_DISCOVERY_AWS_SECRET_ACCESS_KEY',
  ]);
  if (aws) {
    const endpoint = get('SERVICE_DISCOVERY_AWS_ENDPOINT')?.trim();
    config.aws = {
      region: aws[0],
      accessKeyId: aws[1],
      secretAccessKey: aws[2],
      endpoint: endpoint ? url('SERVICE_DISCOVERY_AWS_ENDPOINT', endpoint) : null,
    };
  }
  const azure = need([
    'SERVICE_DISCOVERY_AZURE_VAULT_URL',
    'SERVICE_DISCOVERY_AZURE_TENANT_ID',
    'SERVICE_DISCOVERY_AZURE_CLIENT_ID',
    'SERVICE_DISCOVERY_AZURE_CLIENT_SECRET',
  ]);
  if (azure) {
    config.azure = {
      vaultUrl: url('SERVICE_DISCOVERY_AZURE_VAULT_URL', azure[0]),
      tenantId: azure[1],
      clientId: azure[2],
      clientSecret: azure[3],
      authorityUrl: url(
        'SERVICE_DISCOVERY_AZURE_AUTHORITY_URL',
        get('SERVICE_DISCOVERY_AZURE_AUTHORITY_URL')?.trim() || 'https://login.microsoftonline.com',
      ),
    };
  }
  const gcp = need(['SERVICE_DISCOVERY_GCP_PROJECT', 'SERVICE_DISCOVERY_GCP_CREDENTIALS_FILE']);
  if (gcp) {
    config.gcp = {
      project: gcp[0],
      credentialsFile: gcp[1],
      endpoint: url(
        'SERVICE_DISCOVERY_GCP_ENDPOINT',
        get('SERVICE_DISCOVERY_GCP_ENDPOINT')?.trim() || 'https://secretmanager.googleapis.com',
      ),
    };
  }
  return config;
}
