import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const decisionsDir = join(__dirname, '../../../../docs/decisions');
const records = readdirSync(decisionsDir)
  .filter((file) => /^\d{4}-.*\.md$/.test(file))
  .sort();
const STATUS = /^Status: (Accepted(; amended by .+)?|Superseded by .+)$/;

/** Every ADR says whether it stands, and one that was amended or superseded says by which. */
describe('the decision records in docs/decisions', () => {
  it.each(records.map((file) => [file]))('%s has a status line under its title', (file) => {
    const [title, blank, status] = readFileSync(join(decisionsDir, file), 'utf8').split('\n');
    expect({ title: title.startsWith(`# ${file.slice(0, 4)}. `), blank, status }).toEqual({
      title: true,
      blank: '',
      status: expect.stringMatching(STATUS),
    });
  });

  it.each(records.map((file) => [file]))('%s links only to decisions that exist in its status', (file) => {
    const status = readFileSync(join(decisionsDir, file), 'utf8').split('\n')[2] ?? '';
    const links = [...status.matchAll(/\]\((\d{4}-[^)]+\.md)\)/g)].map((link) => link[1]);
    const named = [...status.matchAll(/\b(?:amended|superseded) by \[?(\d{4})/gi)].length;
    expect(links.filter((link) => !existsSync(join(decisionsDir, link)))).toEqual([]);
    if (/amended|superseded/i.test(status)) expect(named).toBeGreaterThan(0);
  });
});
