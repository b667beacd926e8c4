import { nextSteps, NextStepsInput } from './next-steps';

const input: NextStepsInput = {
  version: '0.1.0',
  port: 8443,
  keyCommand: `$(node -p "require('./.certlane-data/secrets.json').auth_secret")`,
  secretsFile: '.certlane-data/secrets.json',
  certFile: '.certlane-data/tls/server.crt',
  database: 'embedded Postgres in .certlane-data/postgres',
  bus: 'in-process',
  authType: 'api-key',
  keygenMode: 'server',
};

describe('the next steps npm start prints', () => {
  it('shows how to create, and export, a first certificate in server key generation', () => {
    const text = nextSteps(input);
    expect(text).toContain('keys:     SERVICE_KEYGEN_MODE=server');
    expect(text).toContain(
      `curl --cacert .certlane-data/tls/server.crt -H "Authorization: Bearer $CERTLANE_KEY" -H 'Content-Type: application/json' -d '{"id": "web", "common_name": "web.example.test", "sans": ["web.example.test"]}' https://localhost:8443/api/v1/certificates`,
    );
    expect(text).toContain('https://localhost:8443/api/v1/certificates/web/export/pem?download=true');
  });

  it('points at the web GUI on the same origin', () => {
    expect(nextSteps(input)).toContain(
      'the web GUI: open https://localhost:8443/ and sign in with the key above',
    );
  });

  it('points agent key generation to the agent and to SERVICE_KEYGEN_MODE=server for a first try', () => {
    const text = nextSteps({ ...input, keygenMode: 'agent' });
    expect(text).toContain('AwaitingCSR until its agent sends a CSR');
    expect(text).toContain('restart with SERVICE_KEYGEN_MODE=server');
    expect(text).not.toContain('/api/v1/certificates');
  });

  it('says what the bootstrap token is for', () => {
    expect(nextSteps(input)).toContain(
      'bootstrap_token in .certlane-data/secrets.json mints the first stored admin key, once',
    );
  });
});
