import { startPrivateNats, validServiceEnv } from '@certlane/testing';
import { loadConfig } from '../config/load-config';
import { outboundTlsOptions } from '../tls/outbound-tls';
import { connectNatsBus } from './connect-bus';

/**
 * NATS with authentication, as a production NATS runs: the credentials in SERVICE_NATS_URL reach
 * the server (nats.js ignores a URL's user-info, so they must become connect options).
 */
describe('connecting to a NATS server that requires authentication', () => {
  const hooks = { onUnexpected: () => undefined, onRequestHandled: () => undefined };

  async function roundTrip(natsUrl: string): Promise<unknown> {
    const config = loadConfig(
      validServiceEnv({ SERVICE_NATS_URL: natsUrl, SERVICE_DATABASE_URL: 'postgres://x@127.0.0.1/none' }),
    );
    const bus = await connectNatsBus(config, 'certlane-test', outboundTlsOptions(config.outboundTls), hooks);
    try {
      await bus.handle('issuance.v1.ping', async () => ({ service: 'issuance', instance: 'authenticated' }));
      return await bus.request('issuance.v1.ping', {}, { timeoutMs: 5000 });
    } finally {
      await bus.close();
    }
  }

  it('authenticates with the user and password of the URL (a password with digits first and an escaped @)', async () => {
    const server = await startPrivateNats(['--user', 'certlane', '--pass', '42pass@word']);
    try {
      const url = `nats://certlane:${encodeURIComponent('42pass@word')}@127.0.0.1:${server.port}`;
      expect(await roundTrip(url)).toEqual({ service: 'issuance', instance: 'authenticated' });
    } finally {
      await server.destroy();
    }
  }, 30_000);

  it('authenticates with the token of the URL', async () => {
    const server = await startPrivateNats(['--auth', 's3cr3t-token']);
    try {
      expect(await roundTrip(`nats://s3cr3t-token@127.0.0.1:${server.port}`)).toEqual({
        service: 'issuance',
        instance: 'authenticated',
      });
    } finally {
      await server.destroy();
    }
  }, 30_000);
});
