import { createHash } from 'node:crypto';
import type { Pool, PoolClient } from 'pg';
import { DataSource, EntityManager } from 'typeorm';
import { SqlExecutor } from '@certlane/platform';

/** Statement texts get a name (and so are prepared once per connection) up to this many. */
const NAMED_STATEMENTS_MAX = 500;
const names = new Map<string, string>();

function nameOf(text: string): string | undefined {
  let name = names.get(text);
  if (name === undefined && names.size < NAMED_STATEMENTS_MAX) {
    name = `pf_${createHash('sha1').update(text).digest('hex').slice(0, 24)}`;
    names.set(text, name);
  }
  return name;
}

/**
 * A SqlExecutor straight on pg (a pool, or the client of a transaction), for the ACME request
 * path (ADR 0067): every statement is a named prepared statement, so Postgres parses and plans
 * each text once per connection, and no TypeORM query runner is made per statement. It answers
 * as TypeORM's `query` does (rows; `[rows, count]` for UPDATE and DELETE), so the stores read
 * its results with `rowsOf` either way.
 */
export function preparedExecutor(connection: Pool | PoolClient): SqlExecutor {
  return {
    async query(text: string, values: unknown[] = []) {
      const name = nameOf(text);
      const result = await connection.query(name === undefined ? { text, values } : { name, text, values });
      return result.command === 'UPDATE' || result.command === 'DELETE'
        ? [result.rows, result.rowCount]
        : result.rows;
    },
  };
}

/** The prepared executor on a DataSource's pg pool (statements outside a transaction). */
export function poolExecutor(dataSource: DataSource): SqlExecutor {
  return preparedExecutor((dataSource.driver as unknown as { master: Pool }).master);
}

/** The prepared executor on the connection of a TypeORM transaction (`dataSource.transaction`). */
export function transactionExecutor(manager: EntityManager): SqlExecutor {
  const runner = manager.queryRunner as unknown as { databaseConnection?: PoolClient } | undefined;
  return runner?.databaseConnection ? preparedExecutor(runner.databaseConnection) : manager;
}
