import { commandProblem } from '@certlane/connectors';

/** The command rule of targets is the deploying side's (libs/connectors), so both check alike. */
export {
  commandProblem,
  MAX_COMMAND_LENGTH,
  SHELL_METACHARACTERS,
  type CommandProblem,
} from '@certlane/connectors';

/** The argv a checked command runs as (split on runs of spaces); the error names the problem code. */
export function commandArgv(command: string): string[] {
  const problem = commandProblem(command);
  if (problem) throw new Error(`command refused (${problem})`);
  return command.split(' ').filter((part) => part.length > 0);
}
