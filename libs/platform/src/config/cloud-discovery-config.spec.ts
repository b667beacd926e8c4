import { loadCloudDiscoveryConfig } from './cloud-discovery-config';

const from = (vars: Record<string, string>) => (name: string) => vars[name];

describe('loadCloudDiscoveryConfig', () => {
  it('turns nothing on without variables', () => {
    expect(loadCloudDiscoveryConfig(from({}))).toEqual({});
  });

  it('reads each provider with its defaults', () => {
    expect(
      loadCloudDiscoveryConfig(
        from({
          SERVICE_DISCOVERY_AWS_REGION: 'eu-west-1',
          SERVICE_DISCOVERY_AWS_ACCESS_KEY_ID: 'AKID',
          SERVICE_DISCOVERY_AWS_SECRET_ACCESS_KEY: 'secret',
          SERVICE_DISCOVERY_AZURE_VAULT_URL: 'https://v.vault.azure.net/',
          SERVICE_DISCOVERY_AZURE_TENANT_ID: 't',
          SERVICE_DISCOVERY_AZURE_CLIENT_ID: 'c',
          SERVICE_DISCOVERY_AZURE_CLIENT_SECRET: 's',
          SERVICE_DISCOVERY_GCP_PROJECT: 'p',
          SERVICE_DISCOVERY_GCP_CREDENTIALS_FILE: '/etc/certlane/gcp.json',
        }),
      ),
    ).toEqual({
      aws: { region: 'eu-west-1', accessKeyId: 'AKID', secretAccessKey: 'secret', endpoint: null },
      azure: {
        vaultUrl: 'https://v.vault.azure.net',
        tenantId: 't',
        clientId: 'c',
        clientSecret: 's',
        authorityUrl: 'https://login.microsoftonline.com',
      },
      gcp: {
        project: 'p',
        credentialsFile: '/etc/certlane/gcp.json',
        endpoint: 'https://secretmanager.googleapis.com',
      },
    });
  });

  it('refuses a half-configured provider and a bad URL at start', () => {
    expect(() => loadCloudDiscoveryConfig(from({ SERVICE_DISCOVERY_AWS_REGION: 'eu-west-1' }))).toThrow(
      'SERVICE_DISCOVERY_AWS_ACCESS_KEY_ID, SERVICE_DISCOVERY_AWS_SECRET_ACCESS_KEY must be set with SERVICE_DISCOVERY_AWS_REGION',
    );
    expect(() =>
      loadCloudDiscoveryConfig(
        from({
          SERVICE_DISCOVERY_GCP_PROJECT: 'p',
          SERVICE_DISCOVERY_GCP_CREDENTIALS_FILE: '/x',
          SERVICE_DISCOVERY_GCP_ENDPOINT: 'ftp://x',
        }),
      ),
    ).toThrow('SERVICE_DISCOVERY_GCP_ENDPOINT must be an https:// URL');
  });
});
