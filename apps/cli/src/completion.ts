import { Command, Option } from 'commander';
import { OperationId } from '@certlane/api-client';
import { CliIo } from './cli-io';
import { UsageError } from './exit-codes';
import type { GlobalOptions } from './program';

/** The operation behind each generated command, so completion can list live ids. */
export const OPERATION_OF = new WeakMap<Command, OperationId>();

export type IdLister = (listOperation: OperationId) => Promise<string[]>;

const SCRIPTS: Readonly<Record<string, string>> = {
  bash: `# certlane completion for bash: source <(certlane completion bash)
_certlane() {
  local IFS=$'\\n'
  COMPREPLY=( $(certlane __complete -- "\${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null) )
}
complete -o default -o nosort -F _certlane certlane
`,
  zsh: `#compdef certlane
# certlane completion for zsh: source <(certlane completion zsh)
_certlane() {
  local -a candidates
  candidates=("\${(@f)$(certlane __complete -- "\${(@)words[2,CURRENT]}" 2>/dev/null)}")
  if (( \${#candidates} == 0 )) || [[ -z "\${candidates[1]}" ]]; then
    _files
  else
    compadd -Q -- "\${candidates[@]}"
  fi
}
if (( $+functions[compdef] )); then compdef _certlane certlane; fi
`,
  fish: `# certlane completion for fish: certlane completion fish | source
function __certlane_complete
    set -l tokens (commandline -opc) (commandline -ct)
    certlane __complete -- $tokens[2..-1] 2>/dev/null
end
complete -c certlane -f -a '(__certlane_complete)'
`,
};

/** `certlane completion bash|zsh|fish` and the hidden `certlane __complete WORDS...` the scripts call. */
export function addCompletionCommands(
  program: Command,
  io: CliIo,
  listIds?: (options: GlobalOptions) => IdLister,
): void {
  program
    .command('completion <shell>')
    .description('print the completion script for bash, zsh or fish')
    .action((shell: string) => {
      const script = SCRIPTS[shell];
      if (!script) throw new UsageError(`no completion for "${shell}": bash, zsh or fish`);
      io.stdout.write(script);
    });
  program
    .command('__complete [words...]', { hidden: true })
    .description('the completion candidates for a partial command line')
    .action(async (words: string[] | undefined, _options: unknown, command: Command) => {
      const lister = listIds?.(command.optsWithGlobals<GlobalOptions>());
      const candidates = await completions(program, words ?? [], lister);
      if (candidates.length > 0) io.stdout.write(`${candidates.join('\n')}\n`);
    });
}

function findOption(command: Command, flag: string): Option | undefined {
  for (let at: Command | null = command; at; at = at.parent) {
    const option = at.options.find((candidate) => candidate.long === flag || candidate.short === flag);
    if (option) return option;
  }
  return undefined;
}

function longFlags(command: Command): string[] {
  const flags: string[] = [];
  for (let at: Command | null = command; at; at = at.parent)
    for (const option of at.options) if (option.long && !option.hidden) flags.push(option.long);
  return [...flags, '--help'];
}

/**
 * What can come next on a partial command line (`words` without "certlane", the word being
 * typed last): subcommands, flags, a flag's choices, or live ids for a command's first argument.
 */
export async function completions(
  root: Command,
  words: readonly string[],
  listIds?: IdLister,
): Promise<string[]> {
  const current = words[words.length - 1] ?? '';
  const before = words.slice(0, -1);
  let command = root;
  let operands = 0;
  let valueOf: Option | undefined;
  for (const word of before) {
    if (valueOf) {
      valueOf = undefined;
      continue;
    }
    if (word.startsWith('-')) {
      const option = findOption(command, word.split('=')[0]);
      if (option?.required && !word.includes('=')) valueOf = option;
      continue;
    }
    const child = command.commands.find((candidate) => candidate.name() === word);
    if (child && operands === 0) command = child;
    else operands++;
  }
  const matching = (candidates: readonly string[]) =>
    candidates.filter((candidate) => candidate.startsWith(current));
  if (valueOf) return matching(valueOf.argChoices ?? []);
  if (current.startsWith('-')) return matching(longFlags(command));
  const visible = command.commands.filter((child) => !(child as unknown as { _hidden?: boolean })._hidden);
  if (visible.length > 0) return matching(visible.map((child) => child.name()));
  const operation = OPERATION_OF.get(command);
  if (!operation || !listIds || operands > 0 || command.registeredArguments.length === 0) return [];
  const list = command.parent?.commands.find((sibling) => sibling.name() === 'list');
  const listOperation = list ? OPERATION_OF.get(list) : undefined;
  if (!listOperation) return [];
  try {
    return matching(await listIds(listOperation));
  } catch {
    return [];
  }
}
