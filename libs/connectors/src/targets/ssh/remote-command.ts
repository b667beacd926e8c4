import { commandArgv } from '../engine/command';

/**
 * The line an SSH `exec` request carries for a target command. SSH has no argv: the server hands
 * the line to the user's login shell. The command passed the metacharacter rule (ADR 0026), so
 * that shell finds nothing to expand, quote or redirect and splits it into exactly the argv the
 * rule produced; we send that argv joined with single spaces and interpolate nothing into it.
 * Throws for a refused command (the step fails without connecting a channel).
 */
export function remoteCommandLine(command: string): string {
  return commandArgv(command).join(' ');
}
