import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

// libs/pki is tagged type:util and used by services and clients alike: it must stay free of the
// I/O frameworks (docs/architecture.md, "Module boundaries") and of other Certlane libraries.
const BANNED = [/^@nestjs\//, /^typeorm$/, /^nats$/, /^pg$/, /^express$/, /^@certlane\//];

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return sources(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

describe('libs/pki imports', () => {
  it('imports no I/O framework and no other Certlane library', () => {
    const files = sources(__dirname);
    expect(files.length).toBeGreaterThan(10);
    const offenders: string[] = [];
    for (const file of files) {
      for (const match of readFileSync(file, 'utf8').matchAll(
        /from '([^']+)'|require\('([^']+)'\)|import\('([^']+)'\)/g,
      )) {
        const target = match[1] ?? match[2] ?? match[3];
        if (BANNED.some((re) => re.test(target))) offenders.push(`${file}: ${target}`);
      }
    }
    expect(offenders).toEqual([]);
  });
});
