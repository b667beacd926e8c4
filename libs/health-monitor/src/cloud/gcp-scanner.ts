import { createPrivateKey, sign } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { CloudDiscoveryConfig } from '@certlane/platform';
import { MonitorClock } from '../health-checks/monitor-clock';
import { certificateBlocks, CloudApiError, cloudJson } from './cloud-http';
import { CLOUD_OBJECTS_MAX, CloudFinding, CloudScanner } from './cloud-scanner';

type GcpConfig = NonNullable<CloudDiscoveryConfig['gcp']>;

interface ServiceAccount {
  client_email: string;
  private_key: string;
  token_uri: string;
}

const base64url = (data: Buffer | string) => Buffer.from(data).toString('base64url');

/** The service-account JWT of the OAuth 2.0 JWT-bearer grant (RFC 7523), signed RS256. */
export function serviceAccountAssertion(account: ServiceAccount, now: Date): string {
  const iat = Math.floor(now.getTime() / 1000);
  const header = base64url(JSON.stringify({ alg: 'RS256', typ: 'JWT' }));
  const claims = base64url(
    JSON.stringify({
      iss: account.client_email,
      scope: 'https://www.googleapis.com/auth/cloud-platform',
      aud: account.token_uri,
      iat,
      exp: iat + 3600,
    }),
  );
  const signature = sign('sha256', Buffer.from(`${header}.${claims}`), createPrivateKey(account.private_key));
  return `${header}.${claims}.${base64url(signature)}`;
}

/**
 * The `cloud-gcp-sm` scanner (ADR 0063): a token for the service account (a JWT signed with its
 * key, exchanged at its token_uri; the key never leaves), then Secret Manager's secret listing
 * (pageToken) and each secret's latest version (`versions/latest:access`): the PEM certificate
 * blocks of its payload. A secret without an enabled version is skipped.
 */
export class GcpScanner implements CloudScanner {
  readonly sentinel = 'cloud-gcp-sm' as const;

  constructor(private readonly config: GcpConfig) {}

  private account(): ServiceAccount {
    const parsed = JSON.parse(readFileSync(this.config.credentialsFile, 'utf8')) as Partial<ServiceAccount>;
    if (!parsed.client_email || !parsed.private_key || !parsed.token_uri) {
      throw new Error('the Google credentials file needs client_email, private_key and token_uri');
    }
    return parsed as ServiceAccount;
  }

  async scan(clock: MonitorClock): Promise<CloudFinding[]> {
    const account = this.account();
    const form = new URLSearchParams({
      grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
      assertion: serviceAccountAssertion(account, clock.now()),
    });
    const { access_token: token } = await cloudJson<{ access_token?: string }>(
      account.token_uri,
      {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: form.toString(),
      },
      'Google token',
    );
    if (!token) throw new Error('Google token: no access_token in the answer');
    const get = <T>(path: string, what: string) =>
      cloudJson<T>(
        `${this.config.endpoint}/v1/${path}`,
        { headers: { authorization: `Bearer ${token}` } },
        what,
      );
    const findings: CloudFinding[] = [];
    let pageToken: string | undefined;
    do {
      const query = new URLSearchParams({ pageSize: '250', ...(pageToken ? { pageToken } : {}) });
      const page = await get<{ secrets?: { name: string }[]; nextPageToken?: string }>(
        `projects/${encodeURIComponent(this.config.project)}/secrets?${query}`,
        'Secret Manager list secrets',
      );
      for (const secret of page.secrets ?? []) {
        if (findings.length >= CLOUD_OBJECTS_MAX) break;
        try {
          const version = await get<{ payload?: { data?: string } }>(
            `${secret.name}/versions/latest:access`,
            'Secret Manager access version',
          );
          const text = Buffer.from(version.payload?.data ?? '', 'base64').toString('utf8');
          const certificates = certificateBlocks(text);
          if (certificates.length) findings.push({ name: secret.name, certificates });
        } catch (error) {
          // No enabled version (404, FAILED_PRECONDITION): nothing to read in this secret.
          if (!(error instanceof CloudApiError) || (error.status !== 404 && error.status !== 400))
            throw error;
        }
      }
      pageToken = page.nextPageToken || undefined;
    } while (pageToken && findings.length < CLOUD_OBJECTS_MAX);
    return findings;
  }
}
