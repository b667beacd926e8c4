import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';

/**
 * The suite-wide secret scan: every response body a test reads through `httpsRequest`, and every
 * secret a test system held (its env secrets and the secret-bearing columns of its database,
 * collected before the database is dropped), are appended to files in the directory that the
 * global setup names. The global teardown then looks for each secret in each body and fails the
 * run when one appears (libs/testing/src/global-teardown.js).
 */
const directory = () => process.env.CERTLANE_RESPONSE_AUDIT_DIR;

const append = (file: string, record: unknown) => {
  const dir = directory();
  if (dir) appendFileSync(join(dir, `${file}-${process.pid}.ndjson`), `${JSON.stringify(record)}\n`);
};

/** A response a test read: scanned for secrets, and checked against the API description. */
export interface RecordedResponse {
  method: string;
  url: string;
  status: number;
  contentType?: string;
  body: string;
}

export function recordResponse(response: RecordedResponse): void {
  append('bodies', response);
}

/** Values that must never appear in a response body. Short values are ignored (too common to scan). */
export function recordSecrets(source: string, values: readonly (string | undefined | null)[]): void {
  const secrets = values.filter((value): value is string => typeof value === 'string' && value.length >= 16);
  if (secrets.length > 0) append('secrets', { source, secrets });
}

/** Columns whose values are secrets wherever they live: hashes of keys and passwords, ciphertexts, private keys. */
const SECRET_COLUMN =
  '(key_hash|password_hash|token_hash|csrf_hash|secret|ciphertext|private_key|encrypted|sealed)';
/** Hash-chain columns of the audit log are published on purpose. */
const PUBLIC_COLUMNS = new Set(['audit_events.hash', 'audit_events.prev_hash']);

/** Reads every secret-bearing column of a test database so the scan can look for its values. */
export async function collectDatabaseSecrets(databaseUrl: string): Promise<string[]> {
  if (!directory()) return [];
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows: columns } = await client.query<{
      table_schema: string;
      table_name: string;
      column_name: string;
    }>(
      `SELECT table_schema, table_name, column_name FROM information_schema.columns
        WHERE column_name ~ $1 AND table_schema NOT IN ('pg_catalog', 'information_schema')
          AND data_type IN ('text', 'character varying', 'bytea')`,
      [SECRET_COLUMN],
    );
    const values: string[] = [];
    for (const column of columns) {
      if (PUBLIC_COLUMNS.has(`${column.table_name}.${column.column_name}`)) continue;
      const { rows } = await client.query<{ value: string | null }>(
        `SELECT ${quote(column.column_name)}::text AS value FROM ${quote(column.table_schema)}.${quote(column.table_name)} LIMIT 10000`,
      );
      values.push(...rows.map((row) => row.value).filter((value): value is string => !!value));
    }
    return values;
  } finally {
    await client.end();
  }
}

const quote = (identifier: string) => `"${identifier.replace(/"/g, '""')}"`;
