import { resolve } from 'node:path';
import { Command } from 'commander';
import { CliConfig, configPath, Context, readConfig, writeConfig } from './cli-config';
import { CliIo } from './cli-io';
import { UsageError } from './exit-codes';
import { render } from './output/render';
import type { GlobalOptions } from './program';

/** `certlane config ...`: named contexts in the config file, kubectl style. */
export function addConfigCommands(program: Command, io: CliIo): void {
  const config = program.command('config').description('named contexts: where to connect and with which key');
  const file = (command: Command) => configPath(command.optsWithGlobals<GlobalOptions>().config, io.env);
  const change = (command: Command, edit: (current: CliConfig) => void) => {
    const path = file(command);
    const current = readConfig(path);
    edit(current);
    writeConfig(path, current);
  };

  config
    .command('set-context <name>')
    .description('create or change a context from --server, --api-key-file and --ca-bundle')
    .action((name: string, _options: unknown, command: Command) => {
      const options = command.optsWithGlobals<GlobalOptions>();
      change(command, (current) => {
        const context: Context = { ...current.contexts[name] };
        if (options.server) context.server = options.server;
        // Absolute: the context is used from any directory, and must not trust a file found there.
        if (options.apiKeyFile) context['api-key-file'] = resolve(options.apiKeyFile);
        if (options.caBundle) context['ca-bundle'] = resolve(options.caBundle);
        current.contexts[name] = context;
        current['current-context'] ??= name;
      });
      io.stdout.write(`context "${name}" set\n`);
    });

  config
    .command('use-context <name>')
    .description('make a context the current one')
    .action((name: string, _options: unknown, command: Command) => {
      change(command, (current) => {
        if (!current.contexts[name]) throw new UsageError(`no context "${name}"`);
        current['current-context'] = name;
      });
      io.stdout.write(`switched to context "${name}"\n`);
    });

  config
    .command('delete-context <name>')
    .description('remove a context')
    .action((name: string, _options: unknown, command: Command) => {
      change(command, (current) => {
        if (!current.contexts[name]) throw new UsageError(`no context "${name}"`);
        delete current.contexts[name];
        if (current['current-context'] === name) delete current['current-context'];
      });
      io.stdout.write(`deleted context "${name}"\n`);
    });

  config
    .command('current-context')
    .description('the current context')
    .action((_options: unknown, command: Command) => {
      const current = readConfig(file(command))['current-context'];
      if (!current) throw new UsageError('no current context (certlane config use-context NAME)');
      io.stdout.write(`${current}\n`);
    });

  config
    .command('get-contexts')
    .description('every context; the current one marked')
    .action((_options: unknown, command: Command) => {
      const current = readConfig(file(command));
      const rows = Object.entries(current.contexts).map(([name, context]) => ({
        current: name === current['current-context'] ? '*' : '',
        name,
        server: context.server ?? '',
        'api-key-file': context['api-key-file'] ?? '',
        'ca-bundle': context['ca-bundle'] ?? '',
      }));
      io.stdout.write(
        render({ data: rows, total: rows.length }, command.optsWithGlobals<GlobalOptions>().output),
      );
    });
}
