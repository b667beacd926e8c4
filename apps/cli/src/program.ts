import { Command, Option } from 'commander';
import { parse as parseYaml } from 'yaml';
import { ApiClient, HttpsJsonClient, OPERATIONS, OperationId } from '@certlane/api-client';
import { ApiDescription, OperationObject, operationsById, resolveSchema } from './api-description';
import { configPath, readConfig, resolveConnection } from './cli-config';
import { CliIo, readAllStdin, readNamedFile } from './cli-io';
import { commandNames } from './command-names';
import { addCompletionCommands, OPERATION_OF } from './completion';
import { addConfigCommands } from './config-commands';
import { idsFieldOf } from './bulk-batches';
import { parseDuration } from './duration';
import { UsageError } from './exit-codes';
import { checkBeforeSending, isDestructive } from './guards';
import { runOperation } from './operation-runner';
import { camel, inputFromFlags, OperationFlag, operationFlags } from './operation-flags';
import { OUTPUT_FORMATS, OutputFormat } from './output/render';
import { runFileOperation } from './file-operations';

/** The options every command takes (`certlane --server ... certs list`). */
export interface GlobalOptions {
  output: OutputFormat;
  server?: string;
  context?: string;
  config?: string;
  apiKeyFile?: string;
  apiKeyStdin?: boolean;
  caBundle?: string;
}

const USER_AGENT = 'certlane-cli';
/** Completion answers while the user waits at the prompt: a slow server gives no ids rather than a hang. */
const COMPLETION_TIMEOUT_MS = 3_000;

/** An API client for the connection the flags, environment and config file describe. */
export async function clientFor(
  options: GlobalOptions,
  io: CliIo,
  timeoutMs?: number,
): Promise<{ client: ApiClient; close(): void }> {
  const stdinKey = options.apiKeyStdin ? await readAllStdin(io) : '';
  const connection = resolveConnection(
    options,
    io.env,
    readConfig(configPath(options.config, io.env)),
    (path) => readNamedFile(path, 'API key file'),
    () => stdinKey,
  );
  if (!connection.server)
    throw new UsageError(
      'no server: pass --server https://host:8443, set SERVICE_SERVER_URL, or pick a context (certlane config use-context)',
    );
  if (connection.insecureSkipVerify)
    io.stderr.write(
      'warning: SERVICE_SERVER_TLS_INSECURE_SKIP_VERIFY=true: the server certificate is not verified (development only)\n',
    );
  const http = new HttpsJsonClient({
    baseUrl: connection.server,
    apiKey: connection.apiKey ?? '',
    ...(connection.caBundlePath ? { caBundle: readNamedFile(connection.caBundlePath, 'CA bundle') } : {}),
    insecureSkipVerify: connection.insecureSkipVerify,
    userAgent: USER_AGENT,
    ...(timeoutMs ? { timeoutMs } : {}),
  });
  return { client: new ApiClient(http), close: () => http.close() };
}

/** Operations whose command names a file variant with a switch instead of a word. */
const VARIANTS: Partial<
  Record<OperationId, { command: readonly string[]; switch: string; description: string }>
> = {
  exportCertificatePem: {
    command: ['certs', 'export'],
    switch: 'pem',
    description: 'PEM (certificate and chain)',
  },
  exportCertificatePkcs12: {
    command: ['certs', 'export'],
    switch: 'p12',
    description: 'PKCS#12 (certificate and chain, never a private key)',
  },
};

/** The whole command tree: one command per operation of the API description, plus config and completion. */
export function buildProgram(io: CliIo, document: ApiDescription): Command {
  const program = new Command('certlane')
    .description('Certlane certificate lifecycle management: every API operation as a command')
    .addOption(
      new Option('-o, --output <format>', 'output format').choices([...OUTPUT_FORMATS]).default('table'),
    )
    .option('--server <url>', 'https:// URL of the Certlane API (else SERVICE_SERVER_URL, else the context)')
    .option('--context <name>', 'a context of the config file (else its current context)')
    .option('--config <file>', 'the config file (default $XDG_CONFIG_HOME/certlane/config.yaml)')
    .option(
      '--api-key-file <path>',
      'read the API key from this file (else SERVICE_API_KEY_FILE, SERVICE_API_KEY)',
    )
    .option('--api-key-stdin', 'read the API key from stdin')
    .option('--ca-bundle <path>', 'PEM roots to trust (else SERVICE_SERVER_CA_BUNDLE_PATH)')
    .showHelpAfterError('(certlane --help lists the commands)')
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
    });

  const byId = operationsById(document);
  const variantGroups = new Map<string, OperationId[]>();
  for (const { words, operationId } of commandNames()) {
    const variant = VARIANTS[operationId];
    if (variant) {
      const key = variant.command.join(' ');
      variantGroups.set(key, [...(variantGroups.get(key) ?? []), operationId]);
      continue;
    }
    const parent = groupCommand(program, words.slice(0, -1));
    addOperationCommand(parent, words[words.length - 1], operationId, byId.get(operationId), document, io);
  }
  for (const [key, operationIds] of variantGroups) {
    const words = key.split(' ');
    addVariantCommand(groupCommand(program, words.slice(0, -1)), words[words.length - 1], operationIds, io);
  }
  addConfigCommands(program, io);
  addCompletionCommands(program, io, (options) => async (listOperation) => {
    const { client, close } = await clientFor(options, io, COMPLETION_TIMEOUT_MS);
    try {
      const page = (await client.call(listOperation, { query: { per_page: 100 } } as never)) as {
        data?: { id?: unknown }[];
      };
      return (page.data ?? []).map((item) => String(item.id ?? '')).filter(Boolean);
    } finally {
      close();
    }
  });
  return program;
}

/** The command at `words` under `root`, made on first use. */
function groupCommand(root: Command, words: readonly string[]): Command {
  let command = root;
  for (const word of words) {
    command =
      command.commands.find((child) => child.name() === word) ??
      command.command(word).description(`${word} commands`);
  }
  return command;
}

function describe(operationId: OperationId, object: OperationObject | undefined): string {
  const { method, path } = OPERATIONS[operationId];
  const summary = object?.summary && !object.summary.startsWith(method) ? `${object.summary}. ` : '';
  return `${summary}${method} ${path} (${operationId})${object?.description ? `. ${object.description}` : ''}`;
}

const kebab = (name: string) =>
  name
    .replace(/([a-z])([A-Z])/g, '$1-$2')
    .replace(/_/g, '-')
    .toLowerCase();

/** Whether the operation's success answer names a job to wait for. */
function startsJob(document: ApiDescription, object: OperationObject | undefined): boolean {
  const responses = (
    object as { responses?: Record<string, { content?: Record<string, { schema: unknown }> }> }
  )?.responses;
  return Object.entries(responses ?? {}).some(([status, response]) => {
    if (!status.startsWith('2')) return false;
    const schema = resolveSchema(document, response.content?.['application/json']?.schema as never);
    return Boolean(schema.properties?.job_id);
  });
}

function addFlag(command: Command, flag: OperationFlag): void {
  const option =
    flag.kind === 'boolean'
      ? new Option(`--${flag.flag} [bool]`, flag.description)
      : new Option(`--${flag.flag} <${flag.kind === 'list' ? 'value' : flag.kind}>`, flag.description);
  if (flag.kind === 'list')
    option.argParser((value: string, previous?: string[]) => [...(previous ?? []), value]);
  if (flag.choices) option.choices([...flag.choices]);
  command.addOption(option);
}

function addOperationCommand(
  parent: Command,
  verb: string,
  operationId: OperationId,
  object: OperationObject | undefined,
  document: ApiDescription,
  io: CliIo,
): void {
  const operation = OPERATIONS[operationId];
  const command = parent.command(verb).description(describe(operationId, object));
  OPERATION_OF.set(command, operationId);
  for (const name of operation.pathParams) command.argument(`<${kebab(name)}>`);
  const flags = object ? operationFlags(document, object) : [];
  for (const flag of flags) addFlag(command, flag);
  if (operation.body !== 'none')
    command.option('--body-file <path>', 'the JSON or YAML body ("-" for stdin); flags override its fields');
  const nullable = flags.filter((flag) => flag.nullable).map((flag) => flag.flag);
  if (nullable.length > 0) {
    const option = new Option(
      '--null <field>',
      'send this field as null (an update clears or keeps it, as the API documents); repeat for more',
    ).argParser((value: string, previous?: string[]) => [...(previous ?? []), value]);
    // For help and completion; inputFromFlags checks the value.
    option.argChoices = nullable;
    command.addOption(option);
  }
  if ((operation.queryParams as readonly string[]).includes('page'))
    command.option('--all', 'every page, written as it arrives');
  if (isDestructive(operationId, operation.method)) command.option('-y, --yes', 'do not ask before doing it');
  const idsField = operationId.startsWith('bulk') && object ? idsFieldOf(document, object) : undefined;
  if (idsField)
    command.option(
      '--ids-file <path>',
      `the ${idsField.key} to send, one per line ("-" for stdin); sent ${idsField.batch} a call`,
    );
  const waits = operationId === 'getJob' || startsJob(document, object);
  if (waits) {
    command.option('--wait', 'wait for the job to finish, showing its state; non-zero unless it Completed');
    command.option(
      '--timeout <duration>',
      'with --wait: give up after this long (90s, 10m, 1h; default 10m)',
    );
  }
  const fileOperation = !(operation.produces as readonly string[]).every(
    (media) => media === 'application/json',
  );
  if (fileOperation) {
    command.option('-f, --file <path>', 'write the answer to this file (mode 0600)');
    command.option('--overwrite', 'replace the file if it exists');
  }
  command.action(async (...args: unknown[]) => {
    const self = args[args.length - 1] as Command;
    const options = self.optsWithGlobals<GlobalOptions & Record<string, unknown>>();
    const path = Object.fromEntries(operation.pathParams.map((name, index) => [name, String(args[index])]));
    if (options.apiKeyStdin && (options.bodyFile === '-' || options.idsFile === '-'))
      throw new UsageError(
        `--api-key-stdin and --${options.bodyFile === '-' ? 'body' : 'ids'}-file - both read standard input: give the key with --api-key-file`,
      );
    const bodyFile = options.bodyFile ? await readBodyFile(String(options.bodyFile), io) : undefined;
    const input = inputFromFlags(flags, options, bodyFile);
    const body =
      idsField && options.idsFile
        ? { ...input.body, [idsField.key]: await readIds(String(options.idsFile), io) }
        : input.body;
    const request = {
      operationId,
      commandLine: `certlane ${commandPath(self)}`,
      path,
      query: input.query,
      body,
      output: options.output,
      all: Boolean(options.all),
      yes: Boolean(options.yes),
      wait: Boolean(options.wait),
      ...(options.timeout !== undefined ? { waitTimeoutMs: timeoutOf(String(options.timeout)) } : {}),
      ...(idsField ? { idsField } : {}),
    };
    // Refusals need no server: `certs revoke X` without --reason prints the menu anywhere (spec 7).
    checkBeforeSending(operationId, request.commandLine, request.query, request.body);
    const { client, close } = await clientFor(options, io);
    try {
      if (fileOperation)
        await runFileOperation(client, io, request, {
          file: options.file as string | undefined,
          overwrite: Boolean(options.overwrite),
        });
      else await runOperation(client, io, request);
    } finally {
      close();
    }
  });
}

/** One command over a few operations picked by a switch (`certs export <id> --pem|--p12`). */
function addVariantCommand(parent: Command, verb: string, operationIds: OperationId[], io: CliIo): void {
  const first = OPERATIONS[operationIds[0]];
  const command = parent
    .command(verb)
    .description(
      operationIds.map((id) => `--${VARIANTS[id]!.switch}: ${describe(id, undefined)}`).join('; '),
    );
  OPERATION_OF.set(command, operationIds[0]);
  for (const name of first.pathParams) command.argument(`<${kebab(name)}>`);
  for (const id of operationIds) command.option(`--${VARIANTS[id]!.switch}`, VARIANTS[id]!.description);
  command
    .option('-f, --file <path>', 'write to this file (mode 0600) instead of stdout')
    .option('--overwrite', 'replace the file if it exists')
    .option('--password-file <path>', 'PKCS#12: the password to protect the file with, read from this file');
  command.action(async (...args: unknown[]) => {
    const self = args[args.length - 1] as Command;
    const options = self.optsWithGlobals<GlobalOptions & Record<string, unknown>>();
    const chosen = operationIds.filter((id) => options[camel(VARIANTS[id]!.switch)]);
    if (chosen.length !== 1)
      throw new UsageError(
        `certlane ${commandPath(self)} needs exactly one of ${operationIds.map((id) => `--${VARIANTS[id]!.switch}`).join(', ')}`,
      );
    const operationId = chosen[0];
    const path = Object.fromEntries(first.pathParams.map((name, index) => [name, String(args[index])]));
    const password = options.passwordFile
      ? readNamedFile(String(options.passwordFile), 'password file').trim()
      : undefined;
    const { client, close } = await clientFor(options, io);
    try {
      await runFileOperation(
        client,
        io,
        {
          operationId,
          commandLine: `certlane ${commandPath(self)}`,
          path,
          query: operationId === 'exportCertificatePem' ? { download: 'true' } : {},
          body: operationId === 'exportCertificatePkcs12' ? { password: password ?? '' } : undefined,
          output: options.output,
          all: false,
          yes: true,
          wait: false,
        },
        { file: options.file as string | undefined, overwrite: Boolean(options.overwrite) },
      );
    } finally {
      close();
    }
  });
}

/** `certs list` for the command `list` under `certs`. */
export function commandPath(command: Command): string {
  const words: string[] = [];
  for (let at: Command | null = command; at?.parent; at = at.parent) words.unshift(at.name());
  return words.join(' ');
}

async function readBodyFile(path: string, io: CliIo): Promise<Record<string, unknown>> {
  const text = path === '-' ? await readAllStdin(io) : readNamedFile(path, 'body file');
  let parsed: unknown;
  try {
    parsed = parseYaml(text);
  } catch (error) {
    throw new UsageError(`--body-file ${path} is neither JSON nor YAML: ${(error as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new UsageError(`--body-file ${path} must hold one object`);
  return parsed as Record<string, unknown>;
}

function timeoutOf(text: string): number {
  const ms = parseDuration(text);
  if (ms === undefined)
    throw new UsageError(`--timeout takes a duration such as 90s, 10m or 1h, not "${text}"`);
  return ms;
}

async function readIds(path: string, io: CliIo): Promise<string[]> {
  const text = path === '-' ? await readAllStdin(io) : readNamedFile(path, 'ids file');
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'));
}
