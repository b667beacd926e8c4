#!/usr/bin/env node
import { CommanderError } from 'commander';
import { loadApiDescription } from './api-description';
import { CliIo } from './cli-io';
import { errorLine, EXIT, exitCodeOf } from './exit-codes';
import { buildProgram } from './program';

/** Runs one command line; resolves with the exit code (docs/cli.md). */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  try {
    const program = buildProgram(io, loadApiDescription());
    program.exitOverride();
    for (const command of allCommands(program)) command.exitOverride();
    await program.parseAsync([...argv], { from: 'user' });
    return EXIT.ok;
  } catch (error) {
    if (error instanceof CommanderError)
      return error.exitCode === 0 || error.code === 'commander.helpDisplayed' ? EXIT.ok : EXIT.usage;
    io.stderr.write(`${errorLine(error)}\n`);
    return exitCodeOf(error);
  }
}

function allCommands(root: ReturnType<typeof buildProgram>): ReturnType<typeof buildProgram>[] {
  return root.commands.flatMap((child) => [child, ...allCommands(child)]);
}

if (require.main === module) {
  const io: CliIo = {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
  };
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    // `certlane certs list --all | head`: the reader left; that is not a failure.
    if (error.code === 'EPIPE') process.exit(EXIT.ok);
  });
  runCli(process.argv.slice(2), io).then((code) => {
    process.exitCode = code;
  });
}
