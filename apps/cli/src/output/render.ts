import { stringify as toYaml } from 'yaml';
import { visible } from './visible';

export type OutputFormat = 'table' | 'wide' | 'json' | 'yaml';
export const OUTPUT_FORMATS: readonly OutputFormat[] = ['table', 'wide', 'json', 'yaml'];

type Row = Record<string, unknown>;

/** Columns shown first, in this order, when an item has them. */
const PREFERRED = [
  'id',
  'name',
  'common_name',
  'status',
  'type',
  'kind',
  'environment',
  'owner_id',
  'issuer_id',
  'expires_at',
  'not_after',
  'created_at',
];
const NARROW_COLUMNS = 6;

const isScalar = (value: unknown) => value === null || ['string', 'number', 'boolean'].includes(typeof value);
const isScalarList = (value: unknown) => Array.isArray(value) && value.every(isScalar);

/** The columns of a table of items: the preferred ones first; `wide` adds every other plain field. */
export function columnsOf(items: readonly Row[], wide: boolean): string[] {
  const seen: string[] = [];
  for (const item of items)
    for (const [key, value] of Object.entries(item))
      if (!seen.includes(key) && (isScalar(value) || isScalarList(value))) seen.push(key);
  const preferred = PREFERRED.filter((key) => seen.includes(key));
  const rest = seen.filter((key) => !preferred.includes(key));
  const all = [...preferred, ...rest];
  return wide ? all : all.slice(0, Math.max(NARROW_COLUMNS, preferred.length));
}

/** A cell's text: lists comma-joined, null and absent as empty, control characters escaped. */
export function cellOf(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return value.map(cellOf).join(',');
  if (typeof value === 'object') return visible(JSON.stringify(value));
  return visible(String(value).replace(/\s+/g, ' '));
}

/** Fixed-width table rows (header first) without trailing spaces, kubectl style. */
export class TableLayout {
  private readonly widths: number[];

  constructor(
    readonly columns: readonly string[],
    sample: readonly Row[],
  ) {
    this.widths = columns.map((column) =>
      Math.max(column.length, ...sample.map((row) => cellOf(row[column]).length)),
    );
  }

  header(): string {
    return this.line(this.columns.map((column) => visible(column.toUpperCase())));
  }

  row(item: Row): string {
    return this.line(this.columns.map((column) => cellOf(item[column])));
  }

  private line(cells: string[]): string {
    return cells
      .map((cell, index) => (index === cells.length - 1 ? cell : cell.padEnd(this.widths[index])))
      .join('   ')
      .trimEnd();
  }
}

/** The paginated envelope of spec 2.1, when `value` is one. */
export function pageOf(value: unknown): { data: Row[]; total: number } | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const page = value as { data?: unknown; total?: unknown };
  return Array.isArray(page.data) && typeof page.total === 'number'
    ? { data: page.data as Row[], total: page.total }
    : undefined;
}

/** A non-empty list of objects (a bulk call's jobs or errors): printed as its own table. */
const isItemList = (value: unknown): value is Row[] =>
  Array.isArray(value) &&
  value.length > 0 &&
  value.every((item) => typeof item === 'object' && item !== null && !Array.isArray(item));

function table(items: readonly Row[], wide: boolean): string[] {
  const layout = new TableLayout(columnsOf(items, wide), items);
  return [layout.header(), ...items.map((item) => layout.row(item))];
}

/** One answer as text in a format: JSON and YAML as the API sent it, tables for people. */
export function render(value: unknown, format: OutputFormat): string {
  if (value === undefined) return '';
  if (format === 'json') return `${JSON.stringify(value, null, 2)}\n`;
  if (format === 'yaml') return toYaml(value);
  const wide = format === 'wide';
  const items = pageOf(value)?.data ?? (Array.isArray(value) ? (value as Row[]) : undefined);
  if (items) {
    if (items.length === 0) return 'No resources found.\n';
    const objects = items.map((item) => (typeof item === 'object' && item !== null ? item : { value: item }));
    return `${table(objects, wide).join('\n')}\n`;
  }
  if (typeof value !== 'object' || value === null) return `${cellOf(value)}\n`;
  const fields = Object.entries(value as Row);
  const itemLists = fields.filter(([, field]) => isItemList(field)) as [string, Row[]][];
  const entries = fields.filter(
    ([, field]) => !isItemList(field) && (wide || isScalar(field) || isScalarList(field)),
  );
  const width = Math.max(...entries.map(([key]) => key.length), 0);
  const lines = entries.map(([key, field]) =>
    `${`${visible(key)}:`.padEnd(width + 1)}  ${cellOf(field)}`.trimEnd(),
  );
  for (const [key, list] of itemLists)
    lines.push('', `${visible(key.toUpperCase())} (${list.length})`, ...table(list, wide));
  return `${lines.join('\n')}\n`;
}
