import { CloudDiscoveryConfig } from '@certlane/platform';
import { derToPem } from '../discovery/discovery-recorder';
import { cloudJson } from './cloud-http';
import { CLOUD_OBJECTS_MAX, CloudFinding, CloudScanner } from './cloud-scanner';

type AzureConfig = NonNullable<CloudDiscoveryConfig['azure']>;
const API_VERSION = '7.4';

/**
 * The `cloud-azure-sm` scanner (ADR 0063): an OAuth 2.0 client-credentials token from the Entra
 * ID authority (scope https://vault.azure.net/.default), then Key Vault's certificate listing
 * (following nextLink) and each certificate's `cer` (its DER; Key Vault's certificate object
 * never holds the key). Links and ids are followed only on the vault's own origin, so the token
 * is never sent elsewhere.
 */
export class AzureScanner implements CloudScanner {
  readonly sentinel = 'cloud-azure-sm' as const;

  constructor(private readonly config: AzureConfig) {}

  private async token(): Promise<string> {
    const form = new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: this.config.clientId,
      client_secret: this.config.clientSecret,
      scope: 'https://vault.azure.net/.default',
    });
    const answer = await cloudJson<{ access_token?: string }>(
      `${this.config.authorityUrl}/${encodeURIComponent(this.config.tenantId)}/oauth2/v2.0/token`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: form.toString(),
      },
      'Azure token',
    );
    if (!answer.access_token) throw new Error('Azure token: no access_token in the answer');
    return answer.access_token;
  }

  private onVault(link: string): string {
    const vault = new URL(this.config.vaultUrl);
    const url = new URL(link, vault);
    if (url.origin !== vault.origin)
      throw new Error(`Key Vault link ${url.origin} is not the vault's origin`);
    if (!url.searchParams.has('api-version')) url.searchParams.set('api-version', API_VERSION);
    return url.toString();
  }

  async scan(): Promise<CloudFinding[]> {
    const token = await this.token();
    const get = <T>(link: string, what: string) =>
      cloudJson<T>(this.onVault(link), { headers: { authorization: `Bearer ${token}` } }, what);
    const findings: CloudFinding[] = [];
    let next: string | undefined = '/certificates';
    while (next && findings.length < CLOUD_OBJECTS_MAX) {
      const page: { value?: { id: string }[]; nextLink?: string | null } = await get(
        next,
        'Key Vault list certificates',
      );
      for (const item of page.value ?? []) {
        if (findings.length >= CLOUD_OBJECTS_MAX) break;
        const certificate = await get<{ cer?: string }>(item.id, 'Key Vault get certificate');
        if (certificate.cer) {
          findings.push({ name: item.id, certificates: [derToPem(Buffer.from(certificate.cer, 'base64'))] });
        }
      }
      next = page.nextLink ?? undefined;
    }
    return findings;
  }
}
