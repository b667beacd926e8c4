/** The Postgres schema a service owns: its name with dashes turned into underscores. */
export function schemaFor(service: string): string {
  const schema = service.replace(/-/g, '_');
  if (!/^[a-z][a-z0-9_]{0,62}$/.test(schema)) throw new Error(`invalid schema name derived from ${service}`);
  return schema;
}

export function quoteIdent(identifier: string): string {
  return `"${identifier.replace(/"/g, '""')}"`;
}
