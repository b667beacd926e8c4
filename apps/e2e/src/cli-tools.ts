import { execFile } from 'node:child_process';
import { recordResponse } from '@certlane/testing';

export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a real command-line client (curl, openssl) and returns its exit code and output. */
export function run(command: string, args: string[], input = ''): Promise<CommandResult> {
  return new Promise((resolve) => {
    const child = execFile(
      command,
      args,
      { timeout: 20_000, maxBuffer: 10 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
    // A client that exits before reading its stdin (curl, openssl after the handshake) closes the
    // pipe: that EPIPE is expected, not a failure.
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(input);
  });
}

export interface CurlResponse {
  status: number;
  body: string;
  json: () => unknown;
}

/** curl over TLS 1.3 trusting the system's own CA file, as a user would call the API. */
export async function curl(
  url: string,
  options: { cacert: string; method?: string; key?: string; body?: unknown },
): Promise<CurlResponse> {
  const args = [
    '--silent',
    '--show-error',
    '--tlsv1.3',
    '--cacert',
    options.cacert,
    '-X',
    options.method ?? 'GET',
  ];
  if (options.key) args.push('-H', `Authorization: Bearer ${options.key}`);
  if (options.body !== undefined)
    args.push('-H', 'Content-Type: application/json', '--data-binary', JSON.stringify(options.body));
  args.push('--write-out', '\n%{http_code} %{content_type}', url);
  const result = await run('curl', args);
  if (result.code !== 0) throw new Error(`curl ${url} failed (${result.code}): ${result.stderr}`);
  const cut = result.stdout.lastIndexOf('\n');
  const body = result.stdout.slice(0, cut);
  const [status, contentType] = result.stdout.slice(cut + 1).split(' ');
  recordResponse({ method: options.method ?? 'GET', url, status: Number(status), contentType, body });
  return { status: Number(status), body, json: () => JSON.parse(body) };
}
