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

  async rows(dataSource: DataSource, values: unknown[]): Promise<Row[]> {
    const pool = (dataSource.driver as unknown as { master: Pool }).master;
    const result = await pool.query<Row & object>({ name: this.name, text: this.text, values });
    return result.rows;
  }
}
