import { DEFAULT_ROLES } from '@certlane/contracts';
import { ConfigError } from './config-error';

/** An API key defined in the environment (SERVICE_API_KEYS_NAMED). */
export interface NamedApiKey {
  name: string;
  key: string;
  roleIds: string[];
}

const NAME = /^[a-z0-9][a-z0-9._-]{1,63}$/;
const MIN_KEY_LENGTH = 16;

/**
 * `SERVICE_API_KEYS_NAMED` holds entries separated by commas, each `name:key:role[+role...]`,
 * for example `ci-bot:3f8c...:r-operator+r-cli,grafana:9a1b...:r-viewer`. The name is the actor id;
 * roles are default role ids. Malformed entries refuse startup (docs/decisions/0015-named-api-keys.md).
 */
export function parseNamedApiKeys(raw: string | undefined): NamedApiKey[] {
  if (!raw || raw.trim() === '') return [];
  const seen = new Set<string>();
  return raw
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0)
    .map((entry, index) => {
      const parts = entry.split(':');
      const where = `SERVICE_API_KEYS_NAMED entry ${index + 1}`;
      if (parts.length !== 3) throw new ConfigError(`${where} must look like name:key:role[+role]`);
      const [name, key, roles] = parts;
      if (!NAME.test(name))
        throw new ConfigError(`${where}: name must be 2-64 characters of a-z, 0-9, ".", "_" or "-"`);
      if (seen.has(name)) throw new ConfigError(`${where}: the name ${name} appears twice`);
      seen.add(name);
      if (key.length < MIN_KEY_LENGTH)
        throw new ConfigError(`${where} (${name}): the key must be at least ${MIN_KEY_LENGTH} characters`);
      const roleIds = roles.split('+').filter((role) => role.length > 0);
      if (roleIds.length === 0) throw new ConfigError(`${where} (${name}): name at least one role`);
      for (const role of roleIds) {
        if (!(role in DEFAULT_ROLES)) {
          throw new ConfigError(
            `${where} (${name}): ${role} is not a default role (${Object.keys(DEFAULT_ROLES).join(', ')})`,
          );
        }
      }
      return { name, key, roleIds };
    });
}
