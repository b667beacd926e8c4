import { randomUUID } from 'node:crypto';
import type { CommandResult } from '@certlane/connectors';
import { IssuerError, IssueRequest, RevokeRequest } from '@certlane/pki';

/**
 * What a `script` issuer's commands get and give (ADR 0082). Pure: the connector runs the
 * commands, this module builds their environment and reads their answers.
 */

/** sysexits' EX_TEMPFAIL: the CA could not be reached, try again later. */
export const EXIT_TEMPORARY_FAILURE = 75;

/** The most a command may print on standard output (a leaf and its chain fit many times over). */
export const MAX_SCRIPT_OUTPUT_BYTES = 1024 * 1024;

/** The longest part of a command's standard error carried into a message. */
const MAX_REASON_LENGTH = 200;

export interface ScriptIssuerConfig {
  issueCommand: string;
  revokeCommand?: string;
  timeoutSeconds: number;
}

export const DEFAULT_SCRIPT_TIMEOUT_SECONDS = 60;

const joined = (values: readonly string[] | undefined) =>
  values && values.length > 0 ? values.join(' ') : undefined;

function defined(entries: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(entries).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
}

/** The request id a command sees: the caller's idempotency key, stable across its retries. */
function requestId(request: { idempotencyKey: string; requestId?: string }): string {
  return request.idempotencyKey || request.requestId || randomUUID();
}

/** The environment of an issue command, besides PATH and the locale; the CSR goes on its standard input. */
export function issueEnvironment(issuerId: string, request: IssueRequest): Record<string, string> {
  const { profile } = request;
  return defined({
    CERTLANE_OPERATION: 'issue',
    CERTLANE_ISSUER_ID: issuerId,
    CERTLANE_REQUEST_ID: requestId(request),
    CERTLANE_VALIDITY_DAYS: profile.validityDays === undefined ? undefined : String(profile.validityDays),
    CERTLANE_NOT_BEFORE: profile.notBefore?.toISOString(),
    CERTLANE_NOT_AFTER: profile.notAfter?.toISOString(),
    CERTLANE_COMMON_NAME: profile.commonName,
    CERTLANE_SANS: joined(profile.subjectAltNames?.map((san) => `${san.type}:${san.value}`)),
    CERTLANE_KEY_USAGE: joined(profile.keyUsage),
    CERTLANE_EXTENDED_KEY_USAGE: joined(profile.extendedKeyUsage),
    CERTLANE_MUST_STAPLE: profile.mustStaple ? 'true' : undefined,
    CERTLANE_CA_PROFILE: profile.caProfile,
  });
}

/** The environment of a revoke command; the certificate, when known, goes on its standard input. */
export function revokeEnvironment(issuerId: string, request: RevokeRequest): Record<string, string> {
  return defined({
    CERTLANE_OPERATION: 'revoke',
    CERTLANE_ISSUER_ID: issuerId,
    CERTLANE_REQUEST_ID: requestId(request),
    CERTLANE_SERIAL: request.serialNumber,
    CERTLANE_REASON: request.reason,
    CERTLANE_REVOKED_AT: request.revokedAt?.toISOString(),
  });
}

/** The last line a command wrote on standard error, shortened and stripped of control characters. */
export function stderrReason(stderr: string): string {
  const lines = stderr
    .split(/\r?\n/)
    .map((line) => line.replace(/[\u0000-\u001f\u007f]/g, ' ').trim())
    .filter((line) => line !== '');
  const last = lines[lines.length - 1] ?? '';
  return last.length > MAX_REASON_LENGTH ? `${last.slice(0, MAX_REASON_LENGTH)}...` : last;
}

/**
 * The failure a finished command reports, or null when it succeeded: exit 75 or a timeout is a CA
 * that is unavailable (retry later); a command that could not be started is a misconfigured
 * issuer; any other non-zero exit is the CA refusing the request, with the last line of its
 * standard error as the reason.
 */
export function commandFailure(
  result: CommandResult,
  what: string,
  timeoutSeconds: number,
): IssuerError | null {
  if (result.timedOut)
    return new IssuerError('unavailable', `${what} did not finish within ${timeoutSeconds} s`);
  if (result.exitCode === 0) return null;
  const reason = stderrReason(result.stderr);
  const because = reason ? `: ${reason}` : '';
  if (result.exitCode === null) return new IssuerError('misconfigured', `${what} could not be run${because}`);
  if (result.exitCode === EXIT_TEMPORARY_FAILURE)
    return new IssuerError('unavailable', `${what} reported the CA unavailable (exit 75)${because}`);
  return new IssuerError('rejected', `${what} refused the request (exit ${result.exitCode})${because}`);
}
