import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { anchorContextPaths, CliConfig, readConfig, resolveConnection } from './cli-config';
import { UsageError } from './exit-codes';

const config: CliConfig = {
  'current-context': 'prod',
  contexts: {
    prod: { server: 'https://prod:8443', 'api-key-file': '/keys/prod', 'ca-bundle': '/ca/prod.pem' },
    lab: { server: 'https://lab:8443', 'api-key-file': '/keys/lab' },
  },
};
const files: Record<string, string> = {
  '/keys/prod': 'prod-key\n',
  '/keys/lab': 'lab-key',
  '/keys/flag': 'flag-key',
};
const read = (path: string) => files[path];
const resolve = (flags: object, env: NodeJS.ProcessEnv = {}) =>
  resolveConnection(flags, env, config, read, () => 'stdin-key\n');

describe(resolveConnection.name, () => {
  it('takes the current context when nothing else is set', () => {
    expect(resolve({})).toEqual({
      server: 'https://prod:8443',
      apiKey: 'prod-key',
      caBundlePath: '/ca/prod.pem',
      insecureSkipVerify: false,
    });
  });

  it('lets --context pick another context', () => {
    expect(resolve({ context: 'lab' })).toMatchObject({ server: 'https://lab:8443', apiKey: 'lab-key' });
  });

  it('puts the environment above the context', () => {
    expect(
      resolve(
        {},
        {
          SERVICE_SERVER_URL: 'https://env',
          SERVICE_API_KEY: 'env-key',
          SERVICE_SERVER_CA_BUNDLE_PATH: '/e',
        },
      ),
    ).toMatchObject({ server: 'https://env', apiKey: 'env-key', caBundlePath: '/e' });
    expect(resolve({}, { SERVICE_API_KEY_FILE: '/keys/lab', SERVICE_API_KEY: 'env-key' }).apiKey).toBe(
      'lab-key',
    );
  });

  it('puts a context named by --context above the environment, which fills only what it leaves out', () => {
    const env = {
      SERVICE_SERVER_URL: 'https://env',
      SERVICE_API_KEY: 'env-key',
      SERVICE_SERVER_CA_BUNDLE_PATH: '/e',
    };
    expect(resolve({ context: 'lab' }, env)).toMatchObject({
      server: 'https://lab:8443',
      apiKey: 'lab-key',
      caBundlePath: '/e',
    });
    expect(resolve({ context: 'lab' }, { SERVICE_API_KEY_FILE: '/keys/flag' }).apiKey).toBe('lab-key');
  });

  it('puts flags above the environment', () => {
    const env = { SERVICE_SERVER_URL: 'https://env', SERVICE_API_KEY: 'env-key' };
    expect(resolve({ server: 'https://flag', apiKeyFile: '/keys/flag' }, env)).toMatchObject({
      server: 'https://flag',
      apiKey: 'flag-key',
    });
    expect(resolve({ apiKeyStdin: true }, env).apiKey).toBe('stdin-key');
  });

  it('refuses a context that does not exist', () => {
    expect(() => resolve({ context: 'nope' })).toThrow(UsageError);
  });

  it('refuses a current context that names no context (as kubectl), unless --context picks one', () => {
    const stale: CliConfig = { ...config, 'current-context': 'deleted' };
    const resolveStale = (flags: object) => resolveConnection(flags, {}, stale, read, () => '');
    expect(() => resolveStale({})).toThrow(/current context "deleted" is not defined/);
    expect(resolveStale({ context: 'lab' })).toMatchObject({ server: 'https://lab:8443' });
  });
});

describe(anchorContextPaths.name, () => {
  it("makes a context's relative file paths absolute against the config file's directory", () => {
    const anchored = anchorContextPaths(
      {
        contexts: {
          old: { server: 'https://s', 'api-key-file': 'keys/admin.key', 'ca-bundle': '../ca.pem' },
          new: { 'api-key-file': '/keys/prod', 'ca-bundle': '/ca/prod.pem' },
        },
      },
      '/home/me/.config/certlane',
    );
    expect(anchored.contexts).toEqual({
      old: {
        server: 'https://s',
        'api-key-file': '/home/me/.config/certlane/keys/admin.key',
        'ca-bundle': '/home/me/.config/ca.pem',
      },
      new: { 'api-key-file': '/keys/prod', 'ca-bundle': '/ca/prod.pem' },
    });
  });

  it('applies when a config file is read, whatever the working directory', () => {
    const dir = mkdtempSync(join(tmpdir(), 'certlane-config-'));
    try {
      const path = join(dir, 'config.yaml');
      writeFileSync(path, 'contexts:\n  old:\n    ca-bundle: ca.pem\n');
      expect(readConfig(path).contexts.old['ca-bundle']).toBe(join(dir, 'ca.pem'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
