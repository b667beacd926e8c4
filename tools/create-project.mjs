#!/usr/bin/env node
// Writes project.json for the Nx projects of this workspace (run once per new project).
// Usage: node tools/create-project.mjs <root> <name> <tags,comma> [app]
import { mkdirSync, writeFileSync } from 'node:fs';
const [root, name, tags, kind] = process.argv.slice(2);
const project = {
  $schema: '../../node_modules/nx/schemas/project-schema.json'.replace(
    /^(\.\.\/)+/,
    '../'.repeat(root.split('/').length),
  ),
  name,
  sourceRoot: `${root}/src`,
  projectType: kind === 'app' ? 'application' : 'library',
  tags: tags.split(','),
  targets: { test: {}, lint: {} },
};
if (kind === 'app') {
  project.targets.build = {
    executor: 'nx:run-commands',
    outputs: ['{workspaceRoot}/dist'],
    options: { command: 'node tools/build.mjs' },
  };
  project.targets.serve = {
    executor: 'nx:run-commands',
    dependsOn: ['build'],
    options: { command: `node dist/${root}/src/main.js` },
  };
}
mkdirSync(root, { recursive: true });
writeFileSync(`${root}/project.json`, JSON.stringify(project, null, 2) + '\n');
