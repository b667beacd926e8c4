import type { KeygenMode } from '@certlane/platform';

export interface NextStepsInput {
  version: string;
  port: number;
  /** How the user reads the API key: a shell expression or `$SERVICE_AUTH_SECRET`. */
  keyCommand: string;
  /** The data directory's secrets file and TLS certificate, as the user should type them. */
  secretsFile: string;
  certFile: string;
  database: string;
  bus: string;
  authType: string;
  keygenMode: KeygenMode;
}

/** What `npm start` prints once it listens: the README's quick start, in short. */
export function nextSteps(input: NextStepsInput): string {
  const base = `https://localhost:${input.port}`;
  const curl = `curl --cacert ${input.certFile}`;
  const auth = `-H "Authorization: Bearer $CERTLANE_KEY"`;
  const firstCertificate =
    input.keygenMode === 'server'
      ? [
          '  # a first certificate: the service generates the key and issues before it answers (201, status Active)',
          `  ${curl} ${auth} -H 'Content-Type: application/json' -d '{"id": "web", "common_name": "web.example.test", "sans": ["web.example.test"]}' ${base}/api/v1/certificates`,
          `  ${curl} ${auth} -o web.pem "${base}/api/v1/certificates/web/export/pem?download=true"`,
        ]
      : [
          '  # SERVICE_KEYGEN_MODE=agent: a certificate waits in AwaitingCSR until its agent sends a CSR',
          '  # (README, "The agent"). For a first try without an agent, restart with SERVICE_KEYGEN_MODE=server.',
        ];
  return (
    [
      '',
      `Certlane ${input.version} is running at ${base} (TLS 1.3, one process).`,
      `  database: ${input.database}`,
      `  bus:      ${input.bus}`,
      `  auth:     ${input.authType}; generated secrets are in ${input.secretsFile} (mode 0600)`,
      `  keys:     SERVICE_KEYGEN_MODE=${input.keygenMode}`,
      '',
      'Next:',
      `  export CERTLANE_KEY=${input.keyCommand}`,
      `  ${curl} ${base}/api/v1/version`,
      `  ${curl} ${auth} ${base}/api/v1/renewal-policies`,
      ...firstCertificate,
      `  # the web GUI: open ${base}/ and sign in with the key above`,
      `  # bootstrap_token in ${input.secretsFile} mints the first stored admin key, once:`,
      `  #   POST ${base}/api/v1/auth/bootstrap {"token": "...", "actor_id": "alice"}`,
      '',
    ].join('\n') + '\n'
  );
}
