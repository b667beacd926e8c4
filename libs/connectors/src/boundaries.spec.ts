import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

// libs/connectors is tagged scope:shared, type:util and runs inside the agent: no I/O framework,
// and of the Certlane libraries only the contracts and the pure address classification
// (network-safety, no I/O) (ADR 0029).
const BANNED = [
  /^@nestjs\//,
  /^typeorm$/,
  /^nats$/,
  /^pg$/,
  /^express$/,
  /^@certlane\/(?!(contracts|network-safety)$)/,
];

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return sources(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

describe('libs/connectors imports', () => {
  it('imports no I/O framework and no Certlane library but the contracts and network-safety (tests: also the harness)', () => {
    const files = sources(__dirname);
    expect(files.length).toBeGreaterThan(10);
    const offenders: string[] = [];
    for (const file of files) {
      for (const match of readFileSync(file, 'utf8').matchAll(
        /from '([^']+)'|require\('([^']+)'\)|import\('([^']+)'\)/g,
      )) {
        const target = match[1] ?? match[2] ?? match[3];
        // Tests, and only tests, may use the shared harness (libs/testing), as the lint rules say.
        const harness = target === '@certlane/testing' && /\.(int-)?spec\.ts$/.test(file);
        if (!harness && BANNED.some((re) => re.test(target))) offenders.push(`${file}: ${target}`);
      }
    }
    expect(offenders).toEqual([]);
  });
});
