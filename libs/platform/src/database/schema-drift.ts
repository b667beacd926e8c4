import { DataSource } from 'typeorm';

interface ColumnRow {
  table_name: string;
  column_name: string;
  is_nullable: 'YES' | 'NO';
  data_type: string;
  udt_name: string;
}

/** information_schema's name for the column types our entities use. */
function expectedType(type: string, isArray: boolean): string {
  const base: Record<string, string> = {
    text: 'text',
    varchar: 'character varying',
    integer: 'integer',
    int: 'integer',
    bigint: 'bigint',
    boolean: 'boolean',
    timestamptz: 'timestamp with time zone',
    jsonb: 'jsonb',
    uuid: 'uuid',
    bytea: 'bytea',
  };
  return isArray ? 'ARRAY' : (base[type] ?? type);
}

/**
 * Compares the entities of a DataSource with the schema the SQL migrations produced and lists
 * every disagreement (missing table or column, type, nullability). Migrations are the source of
 * truth; this keeps the entities honest (docs/decisions: entities vs migrations).
 */
export async function findSchemaDrift(dataSource: DataSource, schema: string): Promise<string[]> {
  const rows: ColumnRow[] = await dataSource.query(
    `SELECT table_name, column_name, is_nullable, data_type, udt_name FROM information_schema.columns WHERE table_schema = $1`,
    [schema],
  );
  const columns = new Map(rows.map((row) => [`${row.table_name}.${row.column_name}`, row]));
  const problems: string[] = [];
  for (const entity of dataSource.entityMetadatas) {
    for (const column of entity.columns) {
      const key = `${entity.tableName}.${column.databaseName}`;
      const row = columns.get(key);
      if (!row) {
        problems.push(`${key} is mapped by ${entity.name} but missing in the database`);
        continue;
      }
      const type = expectedType(String(column.type), column.isArray);
      if (row.data_type !== type)
        problems.push(`${key}: entity type ${type}, database type ${row.data_type}`);
      if ((row.is_nullable === 'YES') !== column.isNullable) {
        problems.push(
          `${key}: entity nullable=${column.isNullable}, database nullable=${row.is_nullable === 'YES'}`,
        );
      }
    }
  }
  return problems;
}
