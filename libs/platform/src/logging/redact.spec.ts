import { generateKeyPairSync } from 'node:crypto';
import { CONFIG_VARIABLES } from '../config/variables';
import { REDACTED, redactText, redactValue, SECRET_FIELD_PATTERN } from './redact';

const ecKeys = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const PKCS8_KEY = ecKeys.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
const SEC1_KEY = ecKeys.privateKey.export({ type: 'sec1', format: 'pem' }) as string;
const ENCRYPTED_KEY = ecKeys.privateKey.export({
  type: 'pkcs8',
  format: 'pem',
  cipher: 'aes-256-cbc',
  passphrase: 'correct horse',
}) as string;
const KEY_BODY = PKCS8_KEY.split('\n')[1];
const CERTIFICATE = [
  '-----BEGIN CERTIFICATE-----',
  'MIIBfTCCASOgAwIBAgIUQm9ndXNDZXJ0aWZpY2F0ZUZvclRlc3RzMAoGCCqGSM49BAMC',
  'MBQxEjAQBgNVBAMMCWxvY2FsaG9zdDAeFw0yNjAxMDEwMDAwMDBaFw0yNzAxMDEwMDAw',
  '-----END CERTIFICATE-----',
].join('\n');

describe(redactValue.name, () => {
  it.each([
    'password',
    'Password',
    'passphrase',
    'db_password',
    'client_secret',
    'clientSecret',
    'api_key',
    'apiKey',
    'x-api-key',
    'private_key',
    'privateKey',
    'key_pem',
    'authorization',
    'Authorization',
    'cookie',
    'set-cookie',
    'token',
    'refresh_token',
    'bootstrapToken',
    'key_hash',
    'credentials',
  ])('replaces the value of a field named %s', (name) => {
    expect(redactValue({ [name]: 'hunter2-value', id: 'rp-web' })).toEqual({
      [name]: REDACTED,
      id: 'rp-web',
    });
  });

  it('replaces secret-named fields whatever their value type, without descending into them', () => {
    expect(
      redactValue({
        token: { access: 'abc', refresh: 'def' },
        password: 1234,
        secret: ['a', 'b'],
        api_key: null,
      }),
    ).toEqual({ token: REDACTED, password: REDACTED, secret: REDACTED, api_key: REDACTED });
  });

  it('keeps ordinary fields and primitive values unchanged', () => {
    const value = {
      id: 'rp-web',
      name: 'Web',
      count: 3,
      enabled: false,
      missing: null,
      cert_path: '/tls/c.pem',
    };
    expect(redactValue(value)).toEqual(value);
    expect(redactValue(42)).toBe(42);
    expect(redactValue(null)).toBeNull();
    expect(redactValue(undefined)).toBeUndefined();
    expect(redactValue(true)).toBe(true);
  });

  it('redacts secret-named fields at any depth, inside arrays too', () => {
    const value = {
      request: { headers: { authorization: 'Bearer abc', accept: 'application/json' } },
      connectors: [
        { name: 'vault', client_secret: 'shh' },
        { name: 'acme', settings: { private_key: 'k' } },
      ],
    };
    expect(redactValue(value)).toEqual({
      request: { headers: { authorization: REDACTED, accept: 'application/json' } },
      connectors: [
        { name: 'vault', client_secret: REDACTED },
        { name: 'acme', settings: { private_key: REDACTED } },
      ],
    });
  });

  it('scrubs a PEM private key from a nested field whose name is not secret-like', () => {
    const redacted = redactValue({ upstream: { body: `received ${PKCS8_KEY} from the agent` } }) as {
      upstream: { body: string };
    };
    expect(redacted.upstream.body).toBe('received [REDACTED PRIVATE KEY]\n from the agent');
    expect(JSON.stringify(redacted)).not.toContain(KEY_BODY);
  });

  it('keeps a certificate PEM in a field', () => {
    expect(redactValue({ certificate: CERTIFICATE })).toEqual({ certificate: CERTIFICATE });
  });

  it('returns a copy and leaves the logged object untouched', () => {
    const value = { password: 'hunter2', nested: { text: PKCS8_KEY } };
    const before = JSON.parse(JSON.stringify(value));
    const redacted = redactValue(value);
    expect(redacted).not.toBe(value);
    expect(value).toEqual(before);
  });

  it('cuts cycles instead of recursing forever', () => {
    const node: Record<string, unknown> = { name: 'a' };
    node.self = node;
    node.children = [node];
    expect(redactValue(node)).toEqual({ name: 'a', self: '[Circular]', children: ['[Circular]'] });
  });

  it('renders an error as type, scrubbed message and scrubbed stack', () => {
    const error = new TypeError(`cannot parse Bearer eyJhbGciOi.payload.sig near ${SEC1_KEY}`);
    const redacted = redactValue({ err: error }) as { err: { type: string; message: string; stack: string } };
    expect(redacted.err.type).toBe('TypeError');
    expect(redacted.err.message).toBe('cannot parse Bearer [REDACTED] near [REDACTED PRIVATE KEY]\n');
    expect(redacted.err.stack).toContain('TypeError: cannot parse Bearer [REDACTED]');
    expect(JSON.stringify(redacted)).not.toContain('eyJhbGciOi');
  });

  // Regression: SERVICE_CONFIG_ENCRYPTION_KEY is `secret: true` in the variables table, but
  // neither its name nor the CertlaneConfig field holding it (configEncryptionKey) matches
  // SECRET_FIELD_PATTERN, so logging the environment or the config prints the key.
  it('redacts every secret variable of the table and the config fields that hold them', () => {
    const secretNames = CONFIG_VARIABLES.filter((v) => v.secret).map((v) => v.name);
    expect(secretNames).toEqual(
      expect.arrayContaining([
        'SERVICE_AUTH_SECRET',
        'SERVICE_CONFIG_ENCRYPTION_KEY',
        'SERVICE_BOOTSTRAP_TOKEN',
      ]),
    );
    for (const name of [...secretNames, 'configEncryptionKey', 'bootstrapToken']) {
      expect([name, SECRET_FIELD_PATTERN.test(name)]).toEqual([name, true]);
    }
  });
});

describe(redactText.name, () => {
  it('scrubs a PKCS#8 private key inside a message and keeps the text around it', () => {
    expect(redactText(`loaded key ${PKCS8_KEY}for rp-web`)).toBe(
      'loaded key [REDACTED PRIVATE KEY]\nfor rp-web',
    );
  });

  it.each([
    ['an EC (SEC1)', SEC1_KEY],
    ['an encrypted PKCS#8', ENCRYPTED_KEY],
    [
      'an RSA',
      '-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo\n-----END RSA PRIVATE KEY-----',
    ],
    [
      'an OpenSSH',
      '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----',
    ],
  ])('scrubs %s private key', (_kind, pem) => {
    const text = redactText(`key: ${pem}`);
    expect(text).toMatch(/^key: \[REDACTED PRIVATE KEY\]\s*$/);
    expect(text).not.toContain('PRIVATE KEY-----');
  });

  it('scrubs every key of a text holding several', () => {
    const text = redactText(`${PKCS8_KEY} and ${SEC1_KEY}`);
    expect(text.match(/\[REDACTED PRIVATE KEY\]/g)).toHaveLength(2);
    expect(text).toContain(' and ');
  });

  it('scrubs a truncated private key up to the end of the text', () => {
    expect(redactText(`partial ${PKCS8_KEY.slice(0, 80)}`)).toBe('partial [REDACTED PRIVATE KEY]');
  });

  it('keeps a certificate and scrubs only the key of a chain-and-key bundle', () => {
    const text = redactText(`${CERTIFICATE}\n${PKCS8_KEY}`);
    expect(text).toBe(`${CERTIFICATE}\n[REDACTED PRIVATE KEY]\n`);
  });

  it.each([
    ['Authorization: Bearer abc.def-ghi_jkl~mno+pq/rs==', 'Authorization: Bearer [REDACTED]'],
    ['authorization: bearer sk_live_1234', 'authorization: bearer [REDACTED]'],
    ['Authorization: Basic dXNlcjpwYXNz', 'Authorization: Basic [REDACTED]'],
    ['sent Bearer  x1 then Bearer y2, done', 'sent Bearer [REDACTED] then Bearer [REDACTED], done'],
  ])('scrubs the credential of %j', (input, expected) => {
    expect(redactText(input)).toBe(expected);
  });

  it('leaves text without secrets unchanged', () => {
    const text = 'renewal policy "rp-web" updated: window 30 days, retries 3';
    expect(redactText(text)).toBe(text);
  });
});
