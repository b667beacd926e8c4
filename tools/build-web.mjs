#!/usr/bin/env node
// Builds the web GUI (apps/web, Vite) into dist/web, only when its inputs changed: a SHA-256 of
// every file under apps/web, the generated API types it is typed by, and package-lock.json is
// stamped into dist/web/.inputs-sha256; the same hash next time skips the build (ADR 0052), so
// `node tools/build.mjs` stays a two-second step. `--force` builds regardless.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const STAMP = 'dist/web/.inputs-sha256';
const INPUTS = ['apps/web', 'libs/api-client/src/generated', 'package-lock.json', 'tools/build-web.mjs'];

function files(path) {
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path)
    .filter((entry) => entry !== 'node_modules')
    .sort()
    .flatMap((entry) => files(join(path, entry)));
}

export function webInputsHash() {
  const hash = createHash('sha256');
  for (const file of INPUTS.flatMap(files)) {
    // Tests do not change what is built.
    if (/\.(int-)?spec\.tsx?$/.test(file) || file.startsWith('apps/web/test/')) continue;
    hash.update(file).update('\0').update(readFileSync(file)).update('\0');
  }
  return hash.digest('hex');
}

export function buildWeb({ force = false } = {}) {
  const inputs = webInputsHash();
  const built =
    existsSync('dist/web/index.html') && existsSync(STAMP) && readFileSync(STAMP, 'utf8').trim() === inputs;
  if (built && !force) return false;
  const vite = join(dirname(createRequire(import.meta.url).resolve('vite/package.json')), 'bin/vite.js');
  execFileSync(
    process.execPath,
    [vite, 'build', '--config', 'apps/web/vite.config.mts', '--logLevel', 'warn'],
    {
      stdio: 'inherit',
    },
  );
  writeFileSync(STAMP, inputs + '\n');
  return true;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const started = Date.now();
  const rebuilt = buildWeb({ force: process.argv.includes('--force') });
  console.log(
    rebuilt ? `built the web GUI into dist/web (${Date.now() - started} ms)` : 'web GUI up to date',
  );
}
