import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ALL_ERROR_CODES, ErrorCode } from '@certlane/contracts';
import { httpStatusFor } from './error-status';

const errorsPage = readFileSync(join(__dirname, '../../../../docs/errors.md'), 'utf8');

/**
 * Code -> documented status, from the rows of the page's code table: `| \`code\` | 404 | ... |`;
 * a row may name several codes (`| \`owner_in_use\` / \`team_in_use\` | 409 |`).
 */
const documented: [string, number][] = [...errorsPage.matchAll(/^\|([^|]*)\|\s*(\d{3})\s*\|/gm)].flatMap(
  (row) => [...row[1].matchAll(/`([a-z0-9_]+)`/g)].map((code): [string, number] => [code[1], Number(row[2])]),
);
const documentedCodes = documented.map(([code]) => code);

/** docs/errors.md cannot drift from the codes the system emits and their statuses. */
describe('error codes in docs/errors.md', () => {
  it.each(ALL_ERROR_CODES.map((code) => [code]))('documents %s with the status it maps to', (code) => {
    expect(documented.filter(([name]) => name === code)).toEqual([[code, httpStatusFor(code as ErrorCode)]]);
  });

  it('documents no code the system does not know', () => {
    const known = new Set<string>(ALL_ERROR_CODES);
    expect(documentedCodes.filter((code) => !known.has(code))).toEqual([]);
  });
});
