import { once } from 'node:events';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { AwsScanner } from './aws-scanner';

const MINUTE_MS = 60_000;

/** Answers each AWS JSON call with a small page and records the x-amz-date it was signed with. */
function answer(req: IncomingMessage, res: ServerResponse, signedAt: string[]) {
  signedAt.push(String(req.headers['x-amz-date']));
  const target = String(req.headers['x-amz-target']);
  const body: Record<string, unknown> = {
    'secretsmanager.ListSecrets': { SecretList: [{ ARN: 'arn:a' }, { ARN: 'arn:b' }] },
    'secretsmanager.GetSecretValue': { SecretString: 'no certificate here' },
    'CertificateManager.ListCertificates': { CertificateSummaryList: [] },
  };
  req.resume();
  res.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' });
  res.end(JSON.stringify(body[target] ?? {}));
}

describe(AwsScanner.name, () => {
  let server: Server;
  let endpoint: string;
  const signedAt: string[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => answer(req, res, signedAt));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(() => new Promise((resolve) => server.close(resolve)));

  // Regression: every request of a run was signed with the run's start time, so a run longer
  // than AWS's 15-minute skew window failed every later call.
  it('signs each request with the clock at send time, so a long run stays inside the skew window', async () => {
    let current = Date.parse('2026-03-01T10:00:00Z');
    // Each reading is a request being sent; the account is large, so 20 minutes pass between.
    const clock = {
      now: () => {
        const now = new Date(current);
        current += 20 * MINUTE_MS;
        return now;
      },
    };
    const scanner = new AwsScanner({
      region: 'eu-west-1',
      accessKeyId: 'AKID',
      secretAccessKey: 'secret',
      endpoint,
    });
    await scanner.scan(clock);
    expect(signedAt).toEqual([
      '20260301T100000Z',
      '20260301T102000Z',
      '20260301T104000Z',
      '20260301T110000Z',
    ]);
  });
});
