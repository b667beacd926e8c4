import { existsSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/**
 * Where migrations/<service>/ lives: SERVICE_MIGRATIONS_DIR, or the nearest `migrations`
 * directory above the running program (works from the source tree, dist/ and container images).
 */
export function locateMigrationsDir(configured: string | undefined, from: string = __dirname): string {
  if (configured) return resolve(configured);
  let dir = resolve(from);
  for (;;) {
    const candidate = join(dir, 'migrations');
    if (existsSync(candidate) && statSync(candidate).isDirectory()) return candidate;
    const parent = dirname(dir);
    if (parent === dir)
      throw new Error(`no migrations directory found above ${from}; set SERVICE_MIGRATIONS_DIR`);
    dir = parent;
  }
}
