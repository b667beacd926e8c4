import type { Writable } from 'node:stream';
import { stringify as toYaml } from 'yaml';
import { columnsOf, OutputFormat, TableLayout } from './render';

type Row = Record<string, unknown>;

/**
 * Writes the items of every page as they arrive (`--all`), so memory stays flat whatever the
 * total: JSON as one envelope `{"data":[...],"total":n}`, YAML as the same, tables with the
 * column widths of the first page.
 */
export class PageWriter {
  private count = 0;
  private layout?: TableLayout;

  constructor(
    private readonly out: Writable,
    private readonly format: OutputFormat,
  ) {}

  /** Resolves once the stream has taken the text (back-pressure: a slow pipe slows paging). */
  async page(items: readonly Row[]): Promise<void> {
    if (items.length === 0) return;
    let text = '';
    if (this.format === 'json') {
      for (const item of items)
        text += `${this.count++ === 0 ? '{"data":[\n' : ',\n'}${JSON.stringify(item)}`;
    } else if (this.format === 'yaml') {
      if (this.count === 0) text += 'data:\n';
      text += toYaml(items).replace(/^/gm, '  ').replace(/ +$/gm, '');
      this.count += items.length;
    } else {
      if (!this.layout) {
        this.layout = new TableLayout(columnsOf(items, this.format === 'wide'), items);
        text += `${this.layout.header()}\n`;
      }
      for (const item of items) text += `${this.layout.row(item)}\n`;
      this.count += items.length;
    }
    await write(this.out, text);
  }

  async end(total: number): Promise<void> {
    if (this.format === 'json')
      await write(this.out, this.count === 0 ? `{"data":[],"total":${total}}\n` : `\n],"total":${total}}\n`);
    else if (this.format === 'yaml')
      await write(this.out, `${this.count === 0 ? 'data: []\n' : ''}total: ${total}\n`);
    else if (this.count === 0) await write(this.out, 'No resources found.\n');
  }
}

function write(out: Writable, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    if (out.write(text)) return resolve();
    out.once('drain', resolve);
    out.once('error', reject);
  });
}
