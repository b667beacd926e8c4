import { generateKeyPairSync, X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTlsFixture, TlsFixture } from '@certlane/testing';
import { InProcessService, startInProcessService } from '@certlane/testing-in-process';
import { HealthMonitorModule } from '../health-monitor.module';
import { CloudDiscoveryLoop } from './cloud-discovery.loop';
import { StandIn, startAwsStandIn, startAzureStandIn, startGcpStandIn } from './testing/cloud-stand-ins';

const clock = {
  current: new Date(),
  now() {
    return new Date(this.current);
  },
};
const AWS = {
  accessKeyId: 'AKIDCERTLANETEST01',
  secretAccessKey: 'aws-secret-key-for-the-stand-in-0001',
  region: 'eu-west-1',
};
const AZURE = { tenantId: 'tenant-0001', clientId: 'client-0001', clientSecret: 'azure-client-secret-0001' };
const GCP_PROJECT = 'certlane-test';
const GCP_EMAIL = 'discovery@certlane-test.iam.gserviceaccount.com';

/**
 * Cloud secret-manager discovery (ADR 0063) against local stand-ins that speak each provider's
 * documented wire format and check its authentication for real: AWS SigV4 verified by botocore,
 * Entra ID client credentials, Google's JWT bearer grant verified with the service account's key.
 */
describe('cloud secret-manager discovery', () => {
  let dir: string;
  const gcpSecrets: { id: string; data: string | null }[] = [];
  let fixtures: Record<'awsSecret' | 'acmLeaf' | 'acmChain' | 'azure' | 'gcp', TlsFixture>;
  let standIns: StandIn[] = [];
  let service: InProcessService | undefined;

  const start = async (env: Record<string, string>) => {
    await service?.close();
    service = await startInProcessService({
      services: ['health-monitor'],
      modules: [HealthMonitorModule.forRoot({ clock, timer: false })],
      env,
      label: 'clouddisc',
    });
    return service.module.get(CloudDiscoveryLoop);
  };
  const sightings = async () =>
    (
      await service!.sql.query(
        `SELECT s.fingerprint, s.location, s.source FROM discovered_certificate_sightings s ORDER BY s.location, s.fingerprint`,
      )
    ).rows;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cloud-discovery-'));
    const [awsSecret, acmLeaf, acmChain, azure, gcp] = await Promise.all(
      ['aws-secret.test', 'acm.test', 'acm-ca.test', 'azure.test', 'gcp.test'].map((cn) =>
        createTlsFixture(cn),
      ),
    );
    fixtures = { awsSecret, acmLeaf, acmChain, azure, gcp };
    const key = (f: TlsFixture) => readFileSync(f.keyPath, 'utf8');
    writeFileSync(
      join(dir, 'aws.json'),
      JSON.stringify({
        secrets: [
          // A secret holding the key beside the certificate, the usual way.
          {
            ARN: 'arn:aws:secretsmanager:eu-west-1:1:secret:web-tls',
            Name: 'web-tls',
            SecretString: key(awsSecret) + awsSecret.certPem,
          },
          {
            ARN: 'arn:aws:secretsmanager:eu-west-1:1:secret:db-password',
            Name: 'db-password',
            SecretString: 'hunter2',
          },
        ],
        certificates: [
          {
            CertificateArn: 'arn:aws:acm:eu-west-1:1:certificate/abc',
            Certificate: acmLeaf.certPem,
            CertificateChain: acmChain.certPem,
          },
        ],
      }),
    );
    gcpSecrets.push(
      { id: 'api-cert', data: key(gcp) + gcp.certPem },
      { id: 'no-version', data: null },
      { id: 'plain', data: 'not a certificate' },
    );
    const gcpKeys = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const [aws, azureStandIn] = await Promise.all([
      startAwsStandIn({ ...AWS, dataFile: join(dir, 'aws.json') }),
      startAzureStandIn({
        ...AZURE,
        certificates: [{ name: 'portal', der: new X509Certificate(azure.certPem).raw }],
      }),
    ]);
    const gcpStandIn = await startGcpStandIn({
      clientEmail: GCP_EMAIL,
      publicKey: gcpKeys.publicKey,
      project: GCP_PROJECT,
      secrets: gcpSecrets,
    });
    standIns = [aws, azureStandIn, gcpStandIn];
    const credentials = (privateKey: string) =>
      JSON.stringify({
        type: 'service_account',
        client_email: GCP_EMAIL,
        private_key: privateKey,
        token_uri: `${gcpStandIn.url}/token`,
      });
    writeFileSync(
      join(dir, 'gcp.json'),
      credentials(gcpKeys.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string),
    );
    const otherKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    writeFileSync(
      join(dir, 'gcp-wrong-key.json'),
      credentials(otherKey.export({ type: 'pkcs8', format: 'pem' }) as string),
    );
  }, 60_000);

  afterAll(async () => {
    await service?.close();
    await Promise.all(standIns.map((standIn) => standIn.close()));
    rmSync(dir, { recursive: true, force: true });
  });

  const envFor = (over: Record<string, string> = {}) => ({
    SERVICE_DISCOVERY_AWS_REGION: AWS.region,
    SERVICE_DISCOVERY_AWS_ACCESS_KEY_ID: AWS.accessKeyId,
    SERVICE_DISCOVERY_AWS_SECRET_ACCESS_KEY: AWS.secretAccessKey,
    SERVICE_DISCOVERY_AWS_ENDPOINT: standIns[0].url,
    SERVICE_DISCOVERY_AZURE_VAULT_URL: standIns[1].url,
    SERVICE_DISCOVERY_AZURE_AUTHORITY_URL: standIns[1].url,
    SERVICE_DISCOVERY_AZURE_TENANT_ID: AZURE.tenantId,
    SERVICE_DISCOVERY_AZURE_CLIENT_ID: AZURE.clientId,
    SERVICE_DISCOVERY_AZURE_CLIENT_SECRET: AZURE.clientSecret,
    SERVICE_DISCOVERY_GCP_PROJECT: GCP_PROJECT,
    SERVICE_DISCOVERY_GCP_CREDENTIALS_FILE: join(dir, 'gcp.json'),
    SERVICE_DISCOVERY_GCP_ENDPOINT: standIns[2].url,
    ...over,
  });

  it('finds the certificates of all three providers, once across replicas, and never stores a key', async () => {
    const loop = await start(envFor());
    // Two ticks at once stand for two replicas: each sentinel runs once.
    const [a, b] = await Promise.all([loop.runDue(), loop.runDue()]);
    const runs = [...a, ...b].sort((x, y) => x.sentinel.localeCompare(y.sentinel));
    expect(runs).toEqual([
      {
        sentinel: 'cloud-aws-sm',
        status: 'completed',
        objects_found: 2,
        certificates_found: 3,
        certificates_gone: 0,
        error: null,
      },
      {
        sentinel: 'cloud-azure-sm',
        status: 'completed',
        objects_found: 1,
        certificates_found: 1,
        certificates_gone: 0,
        error: null,
      },
      {
        sentinel: 'cloud-gcp-sm',
        status: 'completed',
        objects_found: 1,
        certificates_found: 1,
        certificates_gone: 0,
        error: null,
      },
    ]);
    expect(await sightings()).toEqual(
      [
        [fixtures.acmChain, 'cloud:cloud-aws-sm:arn:aws:acm:eu-west-1:1:certificate/abc'],
        [fixtures.acmLeaf, 'cloud:cloud-aws-sm:arn:aws:acm:eu-west-1:1:certificate/abc'],
        [fixtures.awsSecret, 'cloud:cloud-aws-sm:arn:aws:secretsmanager:eu-west-1:1:secret:web-tls'],
        [fixtures.azure, `cloud:cloud-azure-sm:${standIns[1].url}/certificates/portal`],
        [fixtures.gcp, `cloud:cloud-gcp-sm:projects/${GCP_PROJECT}/secrets/api-cert`],
      ]
        .map(([f, location]) => ({
          fingerprint: (f as TlsFixture).fingerprint,
          location: location as string,
          source: 'cloud',
        }))
        .sort((x, y) => x.location.localeCompare(y.location) || x.fingerprint.localeCompare(y.fingerprint)),
    );
    const stored = await service!.sql.query(`SELECT c::text AS row FROM discovered_certificates c`);
    expect(stored.rows.map((r) => r.row).join('\n')).not.toMatch(/PRIVATE KEY|hunter2/);
    const audit = await service!.sql.query(
      `SELECT envelope::text AS e FROM outbox WHERE envelope::text LIKE '%cloud_discovery.run%'`,
    );
    expect(audit.rows).toHaveLength(3);
    expect(audit.rows.map((r) => r.e).join()).toContain('"actor_id": "agent.cloud-gcp-sm"');
    expect(await loop.runDue()).toEqual([]); // not due again before the interval
    clock.current = new Date(clock.current.getTime() + 6 * 3_600_000 + 1000);
    expect((await loop.runDue()).map((run) => run.status)).toEqual(['completed', 'completed', 'completed']);

    // The certificate secret is deleted from the Google project: the next completed run of that
    // account marks it gone (ADR 0063); the other accounts' certificates stay present.
    gcpSecrets.splice(0, 1);
    clock.current = new Date(clock.current.getTime() + 6 * 3_600_000 + 1000);
    const later = await loop.runDue();
    expect(later.map((run) => [run.sentinel, run.certificates_gone])).toEqual([
      ['cloud-aws-sm', 0],
      ['cloud-azure-sm', 0],
      ['cloud-gcp-sm', 1],
    ]);
    const presence = await service!.sql.query(
      `SELECT fingerprint, gone_at IS NOT NULL AS gone FROM discovered_certificates WHERE fingerprint = ANY($1)`,
      [[fixtures.gcp.fingerprint, fixtures.azure.fingerprint]],
    );
    expect(Object.fromEntries(presence.rows.map((r) => [r.fingerprint, r.gone]))).toEqual({
      [fixtures.gcp.fingerprint]: true,
      [fixtures.azure.fingerprint]: false,
    });
  }, 60_000);

  it('fails a run whose credentials the provider refuses: a wrong SigV4 secret, client secret or signing key', async () => {
    clock.current = new Date(clock.current.getTime() + 7 * 3_600_000);
    const loop = await start(
      envFor({
        SERVICE_DISCOVERY_AWS_SECRET_ACCESS_KEY: 'not-the-right-secret-key-0000000000',
        SERVICE_DISCOVERY_AZURE_CLIENT_SECRET: 'not-the-client-secret',
        SERVICE_DISCOVERY_GCP_CREDENTIALS_FILE: join(dir, 'gcp-wrong-key.json'),
      }),
    );
    const runs = (await loop.runDue()).sort((x, y) => x.sentinel.localeCompare(y.sentinel));
    expect(runs.map((run) => [run.sentinel, run.status, run.error])).toEqual([
      ['cloud-aws-sm', 'failed', 'AWS secretsmanager.ListSecrets: HTTP 403 InvalidSignatureException'],
      ['cloud-azure-sm', 'failed', 'Azure token: HTTP 401 invalid_client'],
      ['cloud-gcp-sm', 'failed', 'Google token: HTTP 400 invalid_grant'],
    ]);
    const state = await service!.sql.query(
      `SELECT sentinel, last_status FROM cloud_discovery_runs ORDER BY sentinel`,
    );
    expect(state.rows.map((r) => r.last_status)).toEqual(['failed', 'failed', 'failed']);
  }, 60_000);
});
