/**
 * One statement built of data-modifying parts (`WITH a AS (UPDATE ...), b AS (INSERT ...) SELECT
 * ...`): Postgres runs the parts atomically in one round trip, without the BEGIN and COMMIT of a
 * transaction (ADR 0067 amendment). Parts see the snapshot the statement started with; a part
 * that must only happen when another changed a row reads that part (`guardedBy`).
 */
export class CompositeStatement {
  readonly values: unknown[] = [];
  private readonly parts: string[] = [];

  /** The placeholder of a new parameter with this value. */
  value(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }

  /** The placeholder of a new parameter, cast (an INSERT ... SELECT types nothing from its columns). */
  typed(value: unknown, type: string): string {
    return `${this.value(value)}::${type}`;
  }

  with(name: string, sql: string): this {
    this.parts.push(`${name} AS (${sql})`);
    return this;
  }

  /** A part no other part reads (an INSERT without RETURNING). */
  add(sql: string): this {
    return this.with(`part_${this.parts.length + 1}`, sql);
  }

  /** The statement: its parts, then `select`. */
  text(select: string): string {
    return this.parts.length ? `WITH ${this.parts.join(',\n')}\n${select}` : select;
  }
}

/** A condition that holds only when the part `guard` (if any) returned a row. */
export function guardedBy(guard: string | undefined): string {
  return guard ? `EXISTS (SELECT 1 FROM ${guard})` : 'true';
}

/**
 * A part that decides whether a statement writes anything (a rate slot): the condition its other
 * parts are written under, and an expression saying why not, for the statement to answer with.
 */
export interface StatementGate {
  condition: string;
  answer: string;
}

/** The INSERT of rows given column by column (name, type, one value per row), when `condition` holds. */
export function unnestInsert(
  statement: CompositeStatement,
  table: string,
  condition: string,
  columns: [name: string, type: string, values: unknown[]][],
): string {
  const arrays = columns.map(([, type, values]) => statement.typed(values, `${type}[]`));
  return `INSERT INTO ${table} (${columns.map(([name]) => name).join(', ')})
    SELECT * FROM unnest(${arrays.join(', ')}) WHERE ${condition}`;
}

/** The INSERT of one row (name, type, value per column), when `condition` holds. */
export function rowInsert(
  statement: CompositeStatement,
  table: string,
  condition: string,
  columns: [name: string, type: string, value: unknown][],
): string {
  const values = columns.map(([, type, value]) => statement.typed(value, type));
  return `INSERT INTO ${table} (${columns.map(([name]) => name).join(', ')})
    SELECT ${values.join(', ')} WHERE ${condition}`;
}
