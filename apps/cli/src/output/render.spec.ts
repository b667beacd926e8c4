import { PassThrough } from 'node:stream';
import { parse as parseYaml } from 'yaml';
import { PageWriter } from './page-writer';
import { cellOf, columnsOf, render } from './render';

const page = {
  data: [
    { id: 'c-1', common_name: 'a.example', status: 'Active', sans: ['a', 'b'], tags: { x: 1 }, note: null },
    { id: 'c-22', common_name: 'bb.example', status: 'Revoked', sans: [], tags: {}, note: 'n' },
  ],
  total: 2,
  page: 1,
  per_page: 50,
};

describe(render.name, () => {
  it('prints JSON and YAML exactly as the API answered (stable for scripts)', () => {
    expect(JSON.parse(render(page, 'json'))).toEqual(page);
    expect(parseYaml(render(page, 'yaml'))).toEqual(page);
  });

  it('prints a page as an aligned table of its items, preferred columns first', () => {
    const lines = render(page, 'table').trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID\s+COMMON_NAME\s+STATUS\s+SANS\s+NOTE$/);
    expect(lines[1]).toMatch(/^c-1\s+a\.example\s+Active\s+a,b$/);
    expect(lines[2].indexOf('bb.example')).toBe(lines[1].indexOf('a.example'));
  });

  it('puts objects into wide output only', () => {
    expect(render(page.data[0], 'table')).not.toContain('tags');
    expect(render(page.data[0], 'wide')).toContain('tags:');
  });

  it("prints an answer's lists of objects as tables of their own (a bulk call's jobs), not as an empty field", () => {
    const result = {
      total_matched: 2,
      enqueued_jobs: [
        { certificate_id: 'web-1', job_id: 'j-1' },
        { certificate_id: 'web-22', job_id: 'j-2' },
      ],
      errors: [],
      total_enqueued: 2,
    };
    const lines = render(result, 'table').trimEnd().split('\n');
    expect(lines.slice(0, 3)).toEqual(['total_matched:   2', 'errors:', 'total_enqueued:  2']);
    expect(lines[4]).toBe('ENQUEUED_JOBS (2)');
    expect(lines[5]).toMatch(/^CERTIFICATE_ID\s+JOB_ID$/);
    expect(lines[7]).toMatch(/^web-22\s+j-2$/);
    expect(lines[6].indexOf('j-1')).toBe(lines[7].indexOf('j-2'));
    expect(render(result, 'wide')).not.toContain('{"certificate_id"');
  });

  it('says so when a list is empty', () => {
    expect(render({ data: [], total: 0 }, 'table')).toBe('No resources found.\n');
  });

  it('keeps narrow tables to six columns unless wide', () => {
    const item = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`f${i}`, i]));
    expect(columnsOf([item], false)).toHaveLength(6);
    expect(columnsOf([item], true)).toHaveLength(10);
  });
});

describe(PageWriter.name, () => {
  const collect = async (
    format: 'json' | 'yaml' | 'table',
    pages: Record<string, unknown>[][],
    total: number,
  ) => {
    const out = new PassThrough();
    let text = '';
    out.on('data', (chunk: Buffer) => (text += chunk.toString()));
    const writer = new PageWriter(out, format);
    for (const items of pages) await writer.page(items);
    await writer.end(total);
    return text;
  };

  it('writes every page into one JSON envelope', async () => {
    const text = await collect('json', [[{ id: 1 }, { id: 2 }], [{ id: 3 }]], 3);
    expect(JSON.parse(text)).toEqual({ data: [{ id: 1 }, { id: 2 }, { id: 3 }], total: 3 });
  });

  it('writes every page into one YAML document', async () => {
    const text = await collect('yaml', [[{ id: 1 }], [{ id: 2 }]], 2);
    expect(parseYaml(text)).toEqual({ data: [{ id: 1 }, { id: 2 }], total: 2 });
  });

  it('writes an empty result as valid JSON', async () => {
    expect(JSON.parse(await collect('json', [], 0))).toEqual({ data: [], total: 0 });
  });

  it('writes one table header for all pages', async () => {
    const text = await collect('table', [[{ id: 'a' }], [{ id: 'b' }]], 2);
    expect(text).toBe('ID\na\nb\n');
  });
});

describe(cellOf.name, () => {
  it('shows control characters from the server as escapes, never to the terminal', () => {
    expect(cellOf('host\x1b]0;pwned\x07')).toBe('host\\x1b]0;pwned\\x07');
    expect(cellOf('v1\u009b31m')).toBe('v1\\x9b31m');
    expect(render([{ id: 'a', hostname: 'x\x1b[2J' }], 'table')).not.toMatch(/\x1b/);
    expect(render({ last_error: 'bad\x7f' }, 'table')).toContain('bad\\x7f');
  });
});
