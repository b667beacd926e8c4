/**
 * Reload, validate and restart commands of targets (spec 2.12). They are never given to a shell:
 * the command is split on spaces into argv and run with execFile (no shell, a timeout). So no
 * character a shell would interpret may appear in them: deployment-dispatch refuses such a
 * command when a target is saved (400, ADR 0026), and the deploying side (agent, connectors)
 * checks it again with the same rule before running it. Quoting is therefore impossible: an
 * argument cannot contain a space (use a wrapper script).
 */
export const SHELL_METACHARACTERS = [
  ';',
  '&',
  '|',
  '`',
  '$',
  '(',
  ')',
  '<',
  '>',
  '\n',
  '\r',
  '\t',
  "'",
  '"',
  '\\',
  '*',
  '?',
  '[',
  ']',
  '{',
  '}',
  '~',
  '#',
  '!',
  '^',
] as const;

/** The longest command accepted (characters). */
export const MAX_COMMAND_LENGTH = 1024;

export type CommandProblem = 'empty' | 'too_long' | 'metacharacter' | 'control_character';

/** Why a command is refused, or null when it may be run as argv. Never echoes the command. */
export function commandProblem(command: string): CommandProblem | null {
  if (command.trim() === '') return 'empty';
  if (command.length > MAX_COMMAND_LENGTH) return 'too_long';
  for (const character of command) {
    if ((SHELL_METACHARACTERS as readonly string[]).includes(character)) return 'metacharacter';
  }
  // NUL and the other C0 controls, and DEL: nothing a command line needs.
  if (/[\u0000-\u001f\u007f]/.test(command)) return 'control_character';
  return null;
}

const REFUSAL_TEXT: Record<CommandProblem, string> = {
  empty: 'empty',
  too_long: 'too long',
  metacharacter: 'shell metacharacter',
  control_character: 'control character',
};

/** Why a command may not be run, in words for a job's error, or null. Never echoes the command. */
export function commandRefusal(command: string): string | null {
  const problem = commandProblem(command);
  return problem ? REFUSAL_TEXT[problem] : null;
}

/** The argv a checked command runs as: split on runs of spaces; throws for a refused command. */
export function commandArgv(command: string): string[] {
  const refusal = commandRefusal(command);
  if (refusal) throw new Error(`command refused (${refusal})`);
  return command.split(' ').filter((part) => part.length > 0);
}
