import { ConfigError } from './config-error';
import { parseNatsServers } from './nats-servers';

describe(parseNatsServers.name, () => {
  it('keeps servers without credentials as they are', () => {
    expect(parseNatsServers(['nats://127.0.0.1:4222', 'tls://nats.example:4443'])).toEqual({
      servers: ['nats://127.0.0.1:4222', 'tls://nats.example:4443'],
    });
  });

  it('takes user and password out of the URLs, percent-decoded, a password of digits included', () => {
    expect(
      parseNatsServers(['nats://certlane:123%40abc@nats-0:4222', 'nats://certlane:123%40abc@nats-1']),
    ).toEqual({
      servers: ['nats://nats-0:4222', 'nats://nats-1'],
      credentials: { user: 'certlane', pass: '123@abc' },
    });
  });

  it('reads a user-info without a password as a token', () => {
    expect(parseNatsServers(['tls://s3cr3t-token@nats:4443'])).toEqual({
      servers: ['tls://nats:4443'],
      credentials: { token: 's3cr3t-token' },
    });
  });

  it('refuses servers with different credentials, without echoing them', () => {
    const refusal = () => parseNatsServers(['nats://a:one@n0:4222', 'nats://a:two@n1:4222']);
    expect(refusal).toThrow(ConfigError);
    expect(refusal).toThrow('every SERVICE_NATS_URL entry must carry the same credentials, or none');
    expect(() => parseNatsServers(['nats://a:one@n0:4222', 'nats://n1:4222'])).toThrow(ConfigError);
  });

  it('refuses no server, another scheme, a path or no host, naming the entry by position only', () => {
    expect(() => parseNatsServers([])).toThrow('at least one');
    expect(() => parseNatsServers(['http://u:secret@n0:4222'])).toThrow(
      /^SERVICE_NATS_URL entry 1 must start with nats:\/\/ or tls:\/\/$/,
    );
    expect(() => parseNatsServers(['nats://n0:4222/x'])).toThrow('must not have a path');
    expect(() => parseNatsServers(['nats://u:secret@:4222'])).toThrow(ConfigError);
  });
});
