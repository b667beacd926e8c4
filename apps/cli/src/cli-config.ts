import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import { UsageError } from './exit-codes';

/** One named place to talk to: `certlane config set-context prod --server ...`. */
export interface Context {
  server?: string;
  'api-key-file'?: string;
  'ca-bundle'?: string;
}

export interface CliConfig {
  'current-context'?: string;
  contexts: Record<string, Context>;
}

/** `--config`, else `$XDG_CONFIG_HOME/certlane/config.yaml`, else `~/.config/certlane/config.yaml`. */
export function configPath(flag: string | undefined, env: NodeJS.ProcessEnv): string {
  if (flag) return flag;
  return join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'certlane', 'config.yaml');
}

/** The context keys that name files. */
const PATH_KEYS = ['api-key-file', 'ca-bundle'] as const;

/**
 * Relative file paths of the contexts made absolute against `dir` (the config file's directory),
 * never against wherever the user stands: a CA bundle planted in the working directory would be
 * trusted. `set-context` stores absolute paths; older files may hold relative ones.
 */
export function anchorContextPaths(config: CliConfig, dir: string): CliConfig {
  const contexts = Object.fromEntries(
    Object.entries(config.contexts).map(([name, context]) => {
      const anchored: Context = { ...context };
      for (const key of PATH_KEYS) {
        const path = anchored[key];
        if (path && !isAbsolute(path)) anchored[key] = resolve(dir, path);
      }
      return [name, anchored];
    }),
  );
  return { ...config, contexts };
}

export function readConfig(path: string): CliConfig {
  if (!existsSync(path)) return { contexts: {} };
  let parsed: unknown;
  try {
    parsed = parseYaml(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new UsageError(`the config file ${path} is not YAML: ${(error as Error).message}`);
  }
  const config = (parsed ?? {}) as Partial<CliConfig>;
  return anchorContextPaths({ ...config, contexts: config.contexts ?? {} }, dirname(resolve(path)));
}

/** Written whole to a temporary file and renamed, readable by its owner only. */
export function writeConfig(path: string, config: CliConfig): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, toYaml(config), { mode: 0o600 });
  chmodSync(temporary, 0o600);
  renameSync(temporary, path);
}

/** Where the CLI connects, and with what; each field from the first place that sets it. */
export interface Connection {
  server?: string;
  apiKey?: string;
  caBundlePath?: string;
  insecureSkipVerify: boolean;
}

export interface ConnectionFlags {
  server?: string;
  context?: string;
  apiKeyFile?: string;
  apiKeyStdin?: boolean;
  caBundle?: string;
}

/**
 * Flags beat everything. A context named by `--context` beats the environment
 * (`SERVICE_SERVER_URL`, `SERVICE_API_KEY_FILE`, `SERVICE_API_KEY`, `SERVICE_SERVER_CA_BUNDLE_PATH`),
 * which fills only what it leaves out; the environment beats the current context. The key never
 * comes from argv: a file, stdin or the environment.
 */
export function resolveConnection(
  flags: ConnectionFlags,
  env: NodeJS.ProcessEnv,
  config: CliConfig,
  readText: (path: string) => string,
  stdinKey: () => string,
): Connection {
  const contextName = flags.context ?? config['current-context'];
  const context = contextName ? config.contexts[contextName] : undefined;
  if (flags.context && !context)
    throw new UsageError(`no context "${flags.context}" (certlane config get-contexts lists them)`);
  // As kubectl: a current context that names nothing is an error, not a silent fallback.
  if (!flags.context && contextName && !context)
    throw new UsageError(
      `the current context "${contextName}" is not defined: certlane config use-context <name> (config get-contexts lists them)`,
    );
  // An empty variable is an unset one (`SERVICE_SERVER_URL= certlane ...`).
  const fromEnv = (name: string) => env[name] || undefined;
  const chosen = <T>(flag: T | undefined, fromContext: T | undefined, environment: T | undefined) =>
    flag ?? (flags.context ? (fromContext ?? environment) : (environment ?? fromContext));
  const envKey = () => {
    const file = fromEnv('SERVICE_API_KEY_FILE');
    return file ? readText(file) : fromEnv('SERVICE_API_KEY');
  };
  const contextKey = () => {
    const file = context?.['api-key-file'];
    return file ? readText(file) : undefined;
  };
  let apiKey: string | undefined;
  if (flags.apiKeyStdin) apiKey = stdinKey();
  else if (flags.apiKeyFile) apiKey = readText(flags.apiKeyFile);
  else apiKey = flags.context ? (contextKey() ?? envKey()) : (envKey() ?? contextKey());
  return {
    server: chosen(flags.server, context?.server, fromEnv('SERVICE_SERVER_URL')),
    apiKey: apiKey?.trim() || undefined,
    caBundlePath: chosen(flags.caBundle, context?.['ca-bundle'], fromEnv('SERVICE_SERVER_CA_BUNDLE_PATH')),
    insecureSkipVerify: env.SERVICE_SERVER_TLS_INSECURE_SKIP_VERIFY === 'true',
  };
}
