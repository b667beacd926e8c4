// eslint-disable-next-line @typescript-eslint/no-require-imports
const { findSecrets } = require('./secret-scan') as {
  findSecrets: (
    bodies: { url: string; status: number; body: string }[],
    secrets: Map<string, string>,
  ) => string[];
};

describe('the suite-wide secret scan', () => {
  const secrets = new Map([['5f2b9c0e7a1d4e3f8b6a5c4d3e2f1a0b', 'rbac database']]);

  it('finds a recorded secret inside a body, naming the response and the source', () => {
    const findings = findSecrets(
      [
        {
          url: 'https://x/api/v1/auth/api-keys',
          status: 200,
          body: '{"h":"5f2b9c0e7a1d4e3f8b6a5c4d3e2f1a0b"}',
        },
      ],
      secrets,
    );
    expect(findings).toEqual(['200 https://x/api/v1/auth/api-keys: contains a secret from rbac database']);
  });

  it.each([
    ['-----BEGIN PRIVATE KEY-----\nMIIB', 'a PEM private key'],
    ['{"key_hash": "abc"}', 'a key_hash field'],
    ['{"id":"a1","api_key_hash":"abc"}', 'an api_key_hash field'],
    ['{"password_hash":"x"}', 'a password_hash field'],
    ['$scrypt$ln=15,r=8,p=1$salt$hash', 'an scrypt password hash'],
  ])('finds the secret shape in %j', (body, name) => {
    expect(findSecrets([{ url: 'u', status: 200, body }], new Map())).toEqual([`200 u: contains ${name}`]);
  });

  it('passes clean bodies', () => {
    expect(findSecrets([{ url: 'u', status: 200, body: '{"id":"k-1","name":"ci"}' }], secrets)).toEqual([]);
  });
});
