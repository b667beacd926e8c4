#!/usr/bin/env node
// Writes the subject catalogue of docs/architecture.md (between its GENERATED markers) from the
// contract maps of libs/contracts. Builds first, since it reads the compiled contracts in dist/.
// Idempotent; run it after adding or renaming a subject:
//
//   node tools/gen-architecture-subjects.mjs          # (re)write the block
//   node tools/gen-architecture-subjects.mjs --check  # exit 1 if the block is stale
//
// libs/contracts/src/docs/subject-catalogue.spec.ts fails on a stale block as well.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const check = process.argv.includes('--check');

execFileSync(process.execPath, [join(root, 'tools/build.mjs')], { stdio: check ? 'ignore' : 'inherit' });
const contracts = require(join(root, 'dist/libs/contracts/src/index.js'));
const catalogue = require(join(root, 'dist/libs/contracts/src/docs/subject-catalogue.js'));

const sourceDir = join(root, 'libs/contracts/src');
const contractSources = readdirSync(sourceDir, { recursive: true })
  .filter((file) => String(file).endsWith('subjects.ts'))
  .sort()
  .map((file) => readFileSync(join(sourceDir, String(file)), 'utf8'));

const page = join(root, 'docs/architecture.md');
const current = readFileSync(page, 'utf8');
const next = catalogue.replaceCatalogue(
  current,
  catalogue.renderSubjectCatalogue({
    requestContracts: contracts.requestContracts,
    eventContracts: contracts.eventContracts,
    services: contracts.SERVICE_NAMES,
    contractSources,
  }),
);

if (check) {
  if (next !== current) {
    process.stderr.write(
      'docs/architecture.md: the subject catalogue is stale; run node tools/gen-architecture-subjects.mjs\n',
    );
    process.exit(1);
  }
} else if (next !== current) {
  writeFileSync(page, next);
  process.stdout.write('docs/architecture.md: subject catalogue written\n');
} else {
  process.stdout.write('docs/architecture.md: subject catalogue already current\n');
}
