#!/usr/bin/env node
// Compiles every app and library with SWC into dist/ (path aliases rewritten to relative
// imports, decorator metadata kept for NestJS) and stamps dist/build-info.json, which
// GET /api/v1/version reports. Type-checking is `npm run typecheck` (tsc), not this step.
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, readFileSync, writeFileSync, mkdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { buildWeb } from './build-web.mjs';

const require = createRequire(import.meta.url);
const swc = require.resolve('@swc/cli/bin/swc.js');

// The path aliases live in tsconfig.base.json only; SWC gets them from there.
const swcrc = JSON.parse(readFileSync('.swcrc', 'utf8'));
const { compilerOptions } = JSON.parse(readFileSync('tsconfig.base.json', 'utf8'));
swcrc.jsc.baseUrl = resolve('.');
swcrc.jsc.paths = compilerOptions.paths;
mkdirSync('tmp', { recursive: true });
writeFileSync('tmp/swcrc.build.json', JSON.stringify(swcrc));

rmSync('dist/apps', { recursive: true, force: true });
rmSync('dist/libs', { recursive: true, force: true });
execFileSync(
  process.execPath,
  [
    swc,
    'apps',
    'libs',
    '-d',
    'dist',
    '--config-file',
    'tmp/swcrc.build.json',
    '--ignore',
    '**/*.spec.ts,**/*.int-spec.ts,apps/e2e/**,apps/web/**,apps/*/src/testing/**',
    '--quiet',
  ],
  { stdio: 'inherit' },
);

// The API description ships with the build (the gateway serves it; ADR 0049).
mkdirSync('dist/openapi', { recursive: true });
for (const extension of ['json', 'yaml'])
  copyFileSync(`docs/openapi.${extension}`, `dist/openapi/openapi.${extension}`);

// The web GUI (Vite), rebuilt only when its inputs changed (ADR 0052); the gateway serves dist/web.
buildWeb();

// The agent and the MCP server are also commands (package.json "bin").
chmodSync('dist/apps/agent/src/main.js', 0o755);
chmodSync('dist/apps/mcp-server/src/main.js', 0o755);
chmodSync('dist/apps/cli/src/main.js', 0o755);

function git(...args) {
  try {
    return execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return '';
  }
}

const { version } = JSON.parse(readFileSync('package.json', 'utf8'));
const buildInfo = {
  version,
  commit: process.env.CERTLANE_BUILD_COMMIT || git('rev-parse', 'HEAD') || 'unknown',
  modified: String(
    process.env.CERTLANE_BUILD_MODIFIED ?? git('status', '--porcelain', '--untracked-files=no') !== '',
  ),
  build_time: new Date().toISOString(),
};
mkdirSync('dist', { recursive: true });
writeFileSync('dist/build-info.json', JSON.stringify(buildInfo, null, 2) + '\n');
console.log(`built certlane ${buildInfo.version} (${buildInfo.commit.slice(0, 12)}) into dist/`);
