import { REVOCATION_REASONS } from '@certlane/contracts';
import { UsageError } from './exit-codes';

/** What each RFC 5280 reason means, for the menu printed when `--reason` is missing. */
const REASON_HELP: Readonly<Record<(typeof REVOCATION_REASONS)[number], string>> = {
  unspecified: 'no reason given',
  keyCompromise: 'the private key is known or suspected to be compromised',
  caCompromise: 'the issuing CA key is compromised',
  affiliationChanged: 'the subject or its organisation changed',
  superseded: 'a newer certificate replaces this one',
  cessationOfOperation: 'the certificate is no longer needed',
  certificateHold: 'suspended for now (can be released)',
  removeFromCRL: 'release a hold',
  privilegeWithdrawn: 'the subject lost the right to it',
  aaCompromise: 'the attribute authority is compromised',
};

/** The ten reasons and what they mean. */
export function reasonMenu(): string {
  const width = Math.max(...REVOCATION_REASONS.map((reason) => reason.length));
  return REVOCATION_REASONS.map((reason) => `  ${reason.padEnd(width)}  ${REASON_HELP[reason]}`).join('\n');
}

/** Operations that revoke: `--reason` is required locally (spec 7, 9). */
const REVOKING = new Set(['revokeManagedCertificate', 'bulkRevokeCertificates', 'estBulkRevokeCertificates']);

/**
 * Local refusals before anything is sent: a revocation without `--reason` (with the menu), a
 * forced agent retirement without `--reason` (spec 7).
 */
export function checkBeforeSending(
  operationId: string,
  commandLine: string,
  query: Readonly<Record<string, unknown>>,
  body: Readonly<Record<string, unknown>> | undefined,
): void {
  if (REVOKING.has(operationId) && !body?.reason) {
    throw new UsageError(`${commandLine} needs --reason, one of:\n${reasonMenu()}`);
  }
  if (operationId === 'retireAgent' && isTrue(query.force) && !query.reason) {
    throw new UsageError(
      `${commandLine} --force needs --reason: the retirement also retires the agent's targets and is audited with it`,
    );
  }
}

const isTrue = (value: unknown) => value === true || value === 'true' || value === '1';

/** Operations that cannot be undone: they ask first on a terminal (unless `--yes`). */
export function isDestructive(operationId: string, method: string): boolean {
  return method === 'DELETE' || /revoke|retire|bulk|deactivate|rotate|cleanup/i.test(operationId);
}
