import { copyFileSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** The SQL migrations of one service, `migrations/<service>/` of the workspace. */
export function serviceMigrationsDir(service: string): string {
  return join(resolve(__dirname, '../../..'), 'migrations', service);
}

/**
 * A temporary directory holding the service's migrations numbered below `number`: a schema as it
 * stood before that migration, for a test that stores old rows and then migrates them. The caller
 * removes the directory.
 */
export function migrationsBefore(service: string, number: string): string {
  const source = serviceMigrationsDir(service);
  const before = mkdtempSync(join(tmpdir(), `certlane-${service}-before-${number}-`));
  for (const name of readdirSync(source).filter((n) => n.endsWith('.sql') && n < number)) {
    copyFileSync(join(source, name), join(before, name));
  }
  return before;
}
