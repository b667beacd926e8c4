import { Body, Controller, Get, INestApplication, Module, Post } from '@nestjs/common';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { IsString } from 'class-validator';
import { CertlaneError, ErrorCode } from '@certlane/contracts';
import {
  createTestDatabase,
  createTlsFixture,
  httpsRequest,
  TestDatabase,
  testNatsUrl,
  TlsFixture,
  uniqueNamespace,
  validServiceEnv,
} from '@certlane/testing';
import pino from 'pino';
import { loadConfig } from '../config/load-config';
import { migrateService } from './run-service';
import { createCertlaneApp, KEEP_ALIVE_TIMEOUT_MS } from './create-app';
import { ServiceCoreModule } from './service-core.module';
import { NatsBus } from '../messaging/nats-bus';
import { Metrics } from '../observability/metrics';
import { ReadinessRegistry } from '../observability/readiness';
import { readTlsMaterial } from '../tls/server-tls';
import { PublicRoute } from '../http/public-route';

class EchoRequest {
  @IsString()
  text!: string;
}

@PublicRoute()
@Controller('test')
class TestController {
  @Post('echo')
  echo(@Body() body: EchoRequest): EchoRequest {
    return body;
  }

  @Get('conflict')
  conflict(): never {
    throw new CertlaneError(ErrorCode.RenewalPolicyDuplicateName, 'taken');
  }

  @Get('crash')
  crash(): never {
    throw new Error('database password is hunter2');
  }
}

@Module({ controllers: [TestController] })
class TestFeatureModule {}

/** A real service application (Nest + TLS + Postgres + NATS) and the HTTP conventions it shares. */
describe(createCertlaneApp.name, () => {
  let database: TestDatabase;
  let tls: TlsFixture;
  let app: INestApplication;
  let bus: NatsBus;
  let base: string;
  let ca: string;
  const logLines: string[] = [];

  beforeAll(async () => {
    database = await createTestDatabase('serviceapp');
    tls = await createTlsFixture();
    ca = readFileSync(tls.certPath, 'utf8');
    const config = loadConfig(
      validServiceEnv({
        SERVICE_TLS_CERT_PATH: tls.certPath,
        SERVICE_TLS_KEY_PATH: tls.keyPath,
        SERVICE_DATABASE_URL: database.url,
        SERVICE_NATS_URL: testNatsUrl(),
        SERVICE_MAX_REQUEST_BODY_BYTES: '2048',
        SERVICE_CORS_ORIGINS: 'https://console.example.com',
      }),
    );
    const logger = pino({ level: 'info' }, { write: (line: string) => void logLines.push(line) });
    await migrateService('notifier', config, logger);
    bus = await NatsBus.connect({
      servers: [testNatsUrl()],
      name: 'service-app-test',
      requestTimeoutMs: 2000,
      namespace: uniqueNamespace('app'),
    });
    app = await createCertlaneApp(
      {
        config,
        logger,
        bus,
        metrics: new Metrics('notifier'),
        readiness: new ReadinessRegistry(),
        buildInfo: { version: '9.9.9', commit: 'abc', modified: 'false', build_time: 'now' },
        tls: readTlsMaterial(config.tls),
      },
      [ServiceCoreModule.forService({ service: 'notifier' }), TestFeatureModule],
    );
    await app.listen(0, '127.0.0.1');
    base = `https://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
  }, 30_000);

  afterAll(async () => {
    await app?.close();
    await bus?.close();
    await database?.drop();
  });

  const post = (path: string, body: string, headers: Record<string, string> = {}) =>
    httpsRequest(`${base}${path}`, {
      method: 'POST',
      ca,
      body,
      headers: { 'content-type': 'application/json', ...headers },
    });

  it('is ready when its database and NATS answer, and names each check', async () => {
    const response = await httpsRequest(`${base}/ready`, { ca });
    expect(response.status).toBe(200);
    expect(response.json()).toEqual({ status: 'ready', checks: { bus: 'up', 'database:notifier': 'up' } });
  });

  it('answers its ping subject over NATS', async () => {
    const reply = await bus.request('notifier.v1.ping', {});
    expect(reply.service).toBe('notifier');
  });

  it('serves Prometheus metrics including the HTTP series', async () => {
    await httpsRequest(`${base}/health`, { ca });
    const response = await httpsRequest(`${base}/metrics`, { ca });
    expect(response.headers['content-type']).toContain('text/plain');
    expect(response.text).toMatch(/certlane_http_requests_total\{[^}]*route="\/health"[^}]*status="200"/);
    expect(response.text).toContain('certlane_process_cpu_user_seconds_total');
  });

  it('routes paths case-sensitively, so /METRICS does not pass an ingress rule meant for /metrics', async () => {
    for (const path of ['/METRICS', '/Metrics', '/HEALTH']) {
      const response = await httpsRequest(`${base}${path}`, { ca });
      expect([path, response.status, response.json()]).toMatchObject([
        path,
        404,
        { code: 'route_not_found' },
      ]);
    }
  });

  it('refuses a body above SERVICE_MAX_REQUEST_BODY_BYTES with 413 payload_too_large', async () => {
    const response = await post('/test/echo', JSON.stringify({ text: 'x'.repeat(4096) }));
    expect(response.status).toBe(413);
    expect(response.json()).toMatchObject({ code: 'payload_too_large' });
    expect((await post('/test/echo', JSON.stringify({ text: 'small' }))).json()).toEqual({ text: 'small' });
  });

  it('renders typed errors with their status and unknown errors as 500 without their message', async () => {
    const conflict = await httpsRequest(`${base}/test/conflict`, { ca });
    expect(conflict.status).toBe(409);
    expect(conflict.json()).toMatchObject({ code: 'renewal_policy_duplicate_name', message: 'taken' });
    const crash = await httpsRequest(`${base}/test/crash`, { ca });
    expect(crash.status).toBe(500);
    expect(crash.json()).toMatchObject({ code: 'internal_error', message: 'internal error' });
    expect(crash.text).not.toContain('hunter2');
  });

  it('answers an unknown route with 404 route_not_found in the same body shape', async () => {
    const response = await httpsRequest(`${base}/nope`, { ca });
    expect(response.status).toBe(404);
    expect(response.json()).toMatchObject({ code: 'route_not_found', request_id: expect.any(String) });
  });

  it('echoes a well-formed X-Request-Id and replaces a malformed one', async () => {
    const kept = await httpsRequest(`${base}/health`, { ca, headers: { 'x-request-id': 'trace-123' } });
    expect(kept.headers['x-request-id']).toBe('trace-123');
    const replaced = await httpsRequest(`${base}/health`, {
      ca,
      headers: { 'x-request-id': 'bad id with spaces' },
    });
    expect(replaced.headers['x-request-id']).not.toBe('bad id with spaces');
  });

  it('keeps idle keep-alive connections past the 60 s idle timeout of clients and load balancers', () => {
    const server = app.getHttpServer() as { keepAliveTimeout: number; headersTimeout: number };
    expect(KEEP_ALIVE_TIMEOUT_MS).toBeGreaterThan(60_000);
    expect(server.keepAliveTimeout).toBe(KEEP_ALIVE_TIMEOUT_MS);
    expect(server.headersTimeout).toBeGreaterThan(server.keepAliveTimeout);
  });

  it('sends security headers and no X-Powered-By', async () => {
    const response = await httpsRequest(`${base}/health`, { ca });
    expect(response.headers['strict-transport-security']).toContain('max-age=31536000');
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.headers['content-security-policy']).toContain("default-src 'none'");
    expect(response.headers['x-powered-by']).toBeUndefined();
  });

  it('allows CORS only for the configured origins', async () => {
    const allowed = await httpsRequest(`${base}/health`, {
      ca,
      headers: { origin: 'https://console.example.com' },
    });
    expect(allowed.headers['access-control-allow-origin']).toBe('https://console.example.com');
    const other = await httpsRequest(`${base}/health`, {
      ca,
      headers: { origin: 'https://evil.example.net' },
    });
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('logs each request as JSON without the Authorization header value', async () => {
    await httpsRequest(`${base}/health`, { ca, headers: { authorization: 'Bearer super-secret-value' } });
    const deadline = Date.now() + 2000;
    while (!logLines.some((l) => l.includes('"path":"/health"')) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    const line = logLines.find((l) => l.includes('"path":"/health"'));
    expect(line).toBeDefined();
    expect(JSON.parse(line!)).toMatchObject({ method: 'GET', status: 200 });
    expect(logLines.join('\n')).not.toContain('super-secret-value');
  });

  it('reports not ready (503) once its database is gone', async () => {
    await database.drop();
    const response = await httpsRequest(`${base}/ready`, { ca });
    expect(response.status).toBe(503);
    expect(response.json()).toMatchObject({
      status: 'not_ready',
      checks: { 'database:notifier': 'down', bus: 'up' },
    });
  });

  it('reports not ready (503) once NATS is unreachable', async () => {
    await bus.close();
    const response = await httpsRequest(`${base}/ready`, { ca });
    expect(response.status).toBe(503);
    expect((response.json() as { checks: Record<string, string> }).checks.bus).toBe('down');
  });
});
