import { OPERATIONS } from '@certlane/api-client';
import { LISTS_WITHOUT_A_PAGE, RESOURCE_PAGES } from '../src/pages/resource-pages';

/** The paths of every JSON list operation of the API description. */
const listPaths = Object.entries(OPERATIONS)
  .filter(([id, op]) => op.method === 'GET' && /^list|List[A-Z]/.test(id))
  .map(([, op]) => op.path as string);

/** The GUI's own pages beside the generic ones. */
const DEDICATED = ['/api/v1/certificates'];

describe('every list the API serves has a page', () => {
  const paged = new Set([...DEDICATED, ...RESOURCE_PAGES.map((page) => page.apiPath)]);

  it('lists the API resources without a page (there must be none outside the known gaps)', () => {
    const missing = listPaths.filter((path) => !paged.has(path) && !(path in LISTS_WITHOUT_A_PAGE));
    expect(missing).toEqual([]);
  });

  it('keeps the known gaps honest: no entry that has a page or is not an operation', () => {
    for (const path of Object.keys(LISTS_WITHOUT_A_PAGE)) {
      expect(paged.has(path)).toBe(false);
      expect(listPaths).toContain(path);
    }
  });

  it('names each page once, under a path no other page uses', () => {
    const paths = RESOURCE_PAGES.map((page) => page.path);
    expect(new Set(paths).size).toBe(paths.length);
    for (const page of RESOURCE_PAGES) expect(listPaths).toContain(page.apiPath);
  });
});
