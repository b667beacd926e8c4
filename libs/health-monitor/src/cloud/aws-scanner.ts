import { CloudDiscoveryConfig } from '@certlane/platform';
import { MonitorClock } from '../health-checks/monitor-clock';
import { signAwsJsonRequest } from './aws-sigv4';
import { certificateBlocks, cloudJson } from './cloud-http';
import { CLOUD_OBJECTS_MAX, CloudFinding, CloudScanner } from './cloud-scanner';

type AwsConfig = NonNullable<CloudDiscoveryConfig['aws']>;
type AcmPage = { CertificateSummaryList?: { CertificateArn: string }[]; NextToken?: string };

/**
 * The `cloud-aws-sm` scanner (ADR 0063): AWS Secrets Manager (ListSecrets, GetSecretValue: the
 * PEM certificate blocks of each SecretString) and ACM (ListCertificates, GetCertificate: the
 * certificate and its chain; ACM never returns a key here), through the JSON protocol signed with
 * SigV4.
 */
export class AwsScanner implements CloudScanner {
  readonly sentinel = 'cloud-aws-sm' as const;

  constructor(private readonly config: AwsConfig) {}

  private endpoint(service: 'secretsmanager' | 'acm'): URL {
    return new URL(this.config.endpoint ?? `https://${service}.${this.config.region}.amazonaws.com`);
  }

  /**
   * One signed call. It is signed with the clock at send time: AWS refuses a signature more than
   * 15 minutes off its own clock, and a large account's run takes longer than that.
   */
  private call<T>(
    service: 'secretsmanager' | 'acm',
    target: string,
    payload: object,
    clock: MonitorClock,
  ): Promise<T> {
    const url = this.endpoint(service);
    const body = JSON.stringify(payload);
    const headers = signAwsJsonRequest({
      url,
      target,
      body,
      region: this.config.region,
      service,
      credentials: this.config,
      now: clock.now(),
    });
    return cloudJson<T>(url.toString(), { method: 'POST', headers, body }, `AWS ${target}`);
  }

  async scan(clock: MonitorClock): Promise<CloudFinding[]> {
    const findings: CloudFinding[] = [];
    let token: string | undefined;
    do {
      const page = await this.call<{ SecretList?: { ARN: string }[]; NextToken?: string }>(
        'secretsmanager',
        'secretsmanager.ListSecrets',
        { MaxResults: 100, ...(token ? { NextToken: token } : {}) },
        clock,
      );
      for (const secret of page.SecretList ?? []) {
        if (findings.length >= CLOUD_OBJECTS_MAX) break;
        const value = await this.call<{ SecretString?: string }>(
          'secretsmanager',
          'secretsmanager.GetSecretValue',
          { SecretId: secret.ARN },
          clock,
        );
        const certificates = certificateBlocks(value.SecretString ?? '');
        if (certificates.length) findings.push({ name: secret.ARN, certificates });
      }
      token = page.NextToken;
    } while (token && findings.length < CLOUD_OBJECTS_MAX);
    token = undefined;
    do {
      const page: AcmPage = await this.call<AcmPage>(
        'acm',
        'CertificateManager.ListCertificates',
        { MaxItems: 100, ...(token ? { NextToken: token } : {}) },
        clock,
      );
      for (const summary of page.CertificateSummaryList ?? []) {
        if (findings.length >= CLOUD_OBJECTS_MAX) break;
        const certificate = await this.call<{ Certificate?: string; CertificateChain?: string }>(
          'acm',
          'CertificateManager.GetCertificate',
          { CertificateArn: summary.CertificateArn },
          clock,
        );
        // The leaf first; the chain's certificates are found (and deduplicated) too.
        const certificates = certificateBlocks(
          `${certificate.Certificate ?? ''}\n${certificate.CertificateChain ?? ''}`,
        );
        if (certificates.length) findings.push({ name: summary.CertificateArn, certificates });
      }
      token = page.NextToken;
    } while (token && findings.length < CLOUD_OBJECTS_MAX);
    return findings;
  }
}
