import { checkConfig, PEM_FILE_FIELDS, TargetConfigError } from '../config-schema';
import type { SshConnectOptions } from './ssh-session';

/** The SSH keys of ADR 0026 beside the PEM file keys (checked by sshSettings, not checkConfig). */
export const SSH_CONNECTION_FIELDS = [
  'host',
  'port',
  'username',
  'auth_method',
  'private_key',
  'password',
  'host_key_fingerprint',
] as const;

export interface SshSettings {
  connect: Omit<SshConnectOptions, 'readyTimeoutMs'>;
  /** The PEM file part of the config (cert_path, key_path, chain_path, file_mode, commands). */
  files: Record<string, unknown>;
}

const text = (value: unknown) => (typeof value === 'string' && value.trim() !== '' ? value : undefined);

/**
 * Splits and checks an `ssh` target config: connection keys (host, port default 22, username,
 * auth_method key|password with the matching secret, the host key pin) and the PEM file keys.
 * Throws TargetConfigError naming the bad keys, never their values.
 */
export function sshSettings(config: Readonly<Record<string, unknown>>): SshSettings {
  const files: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(config)) {
    if (!(SSH_CONNECTION_FIELDS as readonly string[]).includes(name)) files[name] = value;
  }
  const bad = new Set<string>();
  try {
    checkConfig(PEM_FILE_FIELDS, files);
  } catch (error) {
    if (!(error instanceof TargetConfigError)) throw error;
    error.fields.forEach((field) => bad.add(field));
  }
  const host = text(config.host);
  const username = text(config.username);
  if (!host || /[\s/]/.test(host)) bad.add('host');
  if (!username) bad.add('username');
  const rawPort = config.port ?? 22;
  const port = typeof rawPort === 'string' && /^\d+$/.test(rawPort) ? Number(rawPort) : rawPort;
  if (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65535) bad.add('port');
  const method = config.auth_method;
  if (method !== 'key' && method !== 'password') bad.add('auth_method');
  const privateKey = text(config.private_key);
  const password =
    typeof config.password === 'string' && config.password !== '' ? config.password : undefined;
  if (method === 'key' && !privateKey) bad.add('private_key');
  if (method === 'password' && !password) bad.add('password');
  if (!text(config.host_key_fingerprint)) bad.add('host_key_fingerprint');
  if (bad.size > 0) throw new TargetConfigError([...bad].sort());
  return {
    connect: {
      host: host as string,
      port: port as number,
      username: username as string,
      hostKeyFingerprint: config.host_key_fingerprint as string,
      ...(method === 'key' ? { privateKey } : { password }),
    },
    files,
  };
}
