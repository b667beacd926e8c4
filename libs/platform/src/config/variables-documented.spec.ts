import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONFIG_VARIABLES } from './variables';

const readme = readFileSync(join(__dirname, '../../../../README.md'), 'utf8');

/** The README's configuration table cannot drift from the catalogue the code validates. */
describe('CONFIG_VARIABLES in README.md', () => {
  it.each(CONFIG_VARIABLES.map((v) => [v.name]))('documents %s', (name) => {
    expect(readme).toContain(`\`${name}\``);
  });

  it('documents no SERVICE_* variable the code does not know', () => {
    const known = new Set(CONFIG_VARIABLES.map((v) => v.name));
    const mentioned = new Set(readme.match(/\bSERVICE_[A-Z0-9_]+\b/g) ?? []);
    const unknown = [...mentioned].filter((name) => !known.has(name));
    expect(unknown).toEqual([]);
  });
});
