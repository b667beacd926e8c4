import type { Pool } from 'pg';
import { DataSource } from 'typeorm';

/**
 * Runs a named prepared statement straight on the DataSource's pg pool, bypassing TypeORM's
 * query runner: Postgres parses and plans it once per connection. For the few hottest reads
 * only; everything else goes through repositories.
 */
export class PreparedQuery<Row> {
  constructor(
    private readonly name: string,
    private readonly text: string,
  ) {}

  rows(dataSource: DataSource, values: unknown[]): Promise<Row[]> {
    return queryRows<Row>(dataSource, { name: this.name, text: this.text, values });
  }
}

/**
 * Runs a statement on the DataSource's pg pool: by name when it has one (prepared once per
 * connection, as PreparedQuery), else unnamed (parsed and planned for its values each time). A
 * name must always stand for the same text.
 */
export async function queryRows<Row>(
  dataSource: DataSource,
  statement: { text: string; values: unknown[]; name?: string },
): Promise<Row[]> {
  const pool = (dataSource.driver as unknown as { master: Pool }).master;
  const result = await pool.query<Row & object>(
    statement.name === undefined
      ? { text: statement.text, values: statement.values }
      : { name: statement.name, text: statement.text, values: statement.values },
  );
  return result.rows;
}
