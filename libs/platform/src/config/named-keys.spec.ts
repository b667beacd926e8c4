import { ConfigError } from './config-error';
import { parseNamedApiKeys } from './named-keys';

const KEY = 'a'.repeat(8) + '0123456789abcdef';

describe(parseNamedApiKeys.name, () => {
  it('reads nothing from an empty or missing value', () => {
    expect(parseNamedApiKeys(undefined)).toEqual([]);
    expect(parseNamedApiKeys('  ')).toEqual([]);
  });

  it('reads entries name:key:role+role separated by commas', () => {
    expect(parseNamedApiKeys(` ci-bot:${KEY}:r-operator+r-cli , grafana:${KEY}x:r-viewer`)).toEqual([
      { name: 'ci-bot', key: KEY, roleIds: ['r-operator', 'r-cli'] },
      { name: 'grafana', key: `${KEY}x`, roleIds: ['r-viewer'] },
    ]);
  });

  it.each([
    ['a missing part', `ci-bot:${KEY}`, /name:key:role/],
    ['an invalid name', `CI Bot:${KEY}:r-viewer`, /name must be/],
    ['a short key', 'ci-bot:short:r-viewer', /at least 16/],
    ['no role', `ci-bot:${KEY}:`, /at least one role/],
    ['an unknown role', `ci-bot:${KEY}:r-god`, /r-god is not a default role/],
    ['a repeated name', `ci-bot:${KEY}:r-viewer,ci-bot:${KEY}y:r-viewer`, /appears twice/],
  ])('refuses %s with one line naming the entry', (_what, raw, message) => {
    expect(() => parseNamedApiKeys(raw)).toThrow(ConfigError);
    expect(() => parseNamedApiKeys(raw)).toThrow(message);
  });

  it('never puts the key into an error message', () => {
    try {
      parseNamedApiKeys(`ci-bot:${KEY}:r-god`);
    } catch (error) {
      expect((error as Error).message).not.toContain(KEY);
    }
    expect.assertions(1);
  });
});
