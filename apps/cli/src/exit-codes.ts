import { ApiClientConfigError, ApiError, ApiNetworkError } from '@certlane/api-client';
import { visible } from './output/visible';

/** The CLI's exit codes (docs/cli.md): scripts branch on these. */
export const EXIT = {
  ok: 0,
  failure: 1,
  usage: 2,
  auth: 3,
  notFound: 4,
  conflict: 5,
  server: 6,
  network: 7,
  unsuccessful: 8,
  timedOut: 9,
} as const;

/** Wrong use of the CLI, found before anything was sent (a missing `--reason`, a bad flag value). */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/**
 * The request was answered but its work did not succeed: a waited-for job ended Failed or
 * Cancelled (`unsuccessful`) or had not finished in time (`timedOut`), a bulk call counted failed
 * items (`unsuccessful`). The answer has been printed; this only sets the exit code.
 */
export class OutcomeError extends Error {
  constructor(
    message: string,
    readonly exitCode: typeof EXIT.unsuccessful | typeof EXIT.timedOut,
  ) {
    super(message);
    this.name = 'OutcomeError';
  }
}

/** The exit code for an error the CLI stops on. */
export function exitCodeOf(error: unknown): number {
  if (error instanceof UsageError || error instanceof ApiClientConfigError) return EXIT.usage;
  if (error instanceof OutcomeError) return error.exitCode;
  if (error instanceof ApiNetworkError) return EXIT.network;
  if (!(error instanceof ApiError)) return EXIT.failure;
  const { status } = error;
  if (status === 401 || status === 403) return EXIT.auth;
  if (status === 404 || status === 410) return EXIT.notFound;
  if (status === 409 || status === 412) return EXIT.conflict;
  if (status >= 500 || status === 429) return EXIT.server;
  if (status >= 400) return EXIT.usage;
  return EXIT.failure;
}

/** One line for stderr: the API's code and message (and request id), or the local reason. */
export function errorLine(error: unknown): string {
  if (error instanceof ApiError) {
    const id = error.requestId ? ` (request ${error.requestId})` : '';
    return visible(`error: ${error.code ?? `http_${error.status}`}: ${error.reason}${id}`);
  }
  // Line breaks stay: a usage error's reason menu is several lines.
  const message = (error instanceof Error ? error.message : String(error)) + tlsHint(error);
  return `error: ${message.split('\n').map(visible).join('\n')}`;
}

/** Node's codes for a server certificate that did not verify (not a refused or broken connection). */
const CERTIFICATE_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_UNTRUSTED',
  'CERT_SIGNATURE_FAILURE',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/**
 * What to do when the server's certificate did not verify: trust its CA, or use the name it was
 * issued for. Verification is never turned off for the user (that is the development-only
 * SERVICE_SERVER_TLS_INSECURE_SKIP_VERIFY, not suggested here).
 */
function tlsHint(error: unknown): string {
  if (!(error instanceof ApiNetworkError)) return '';
  const code = (error.cause as NodeJS.ErrnoException | undefined)?.code;
  if (!code || !CERTIFICATE_CODES.has(code)) return '';
  return code === 'ERR_TLS_CERT_ALTNAME_INVALID'
    ? ' (the server certificate is not for this host name: use the name it was issued for in --server)'
    : ` (the server certificate did not verify, ${code}: give the CA that issued it with --ca-bundle, SERVICE_SERVER_CA_BUNDLE_PATH or the context's ca-bundle)`;
}
