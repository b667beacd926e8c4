#!/usr/bin/env node
// No import cycles between the folders of a library (issue 16 point 5; ADR 0050). Nx's
// @nx/enforce-module-boundaries already refuses cycles between libraries; this check does the same
// one level down: inside each project's src/, the first-level folders (certificates/, jobs/...)
// must import each other without a cycle. Files directly in src/ (index.ts, the module or
// provider list that composes the folders) are not a folder and are left out. Spec files count:
// a test that reaches into a folder that depends on its own is a cycle too.
// Usage: node tools/check-folder-cycles.mjs [folders...]: the projects (project.json) in those
// folders (default: libs and apps).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

const importPattern = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+'(\.{1,2}\/[^']+)'/g;

function projectRoots(folders) {
  const roots = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir)) {
      if (entry === 'node_modules' || entry === 'dist' || entry.startsWith('.')) continue;
      const path = join(dir, entry);
      if (!statSync(path).isDirectory()) continue;
      if (existsSync(join(path, 'project.json'))) roots.push(path);
      walk(path);
    }
  };
  for (const folder of folders) {
    if (existsSync(join(folder, 'project.json'))) roots.push(folder);
    walk(folder);
  }
  return roots;
}

function tsFiles(dir) {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return tsFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

/** The first-level folder of `file` under `src`, or null for a file directly in src/. */
function folderOf(src, file) {
  const parts = relative(src, file).split(sep);
  return parts.length > 1 ? parts[0] : null;
}

/** folder -> folder -> one import that makes the edge (file and specifier), for the report. */
function folderGraph(src) {
  const graph = new Map();
  for (const file of tsFiles(src)) {
    const from = folderOf(src, file);
    if (!from) continue;
    const text = readFileSync(file, 'utf8');
    for (const [, specifier] of text.matchAll(importPattern)) {
      const target = resolve(dirname(file), specifier);
      if (!target.startsWith(resolve(src) + sep)) continue;
      const to = folderOf(resolve(src), target);
      if (!to || to === from) continue;
      if (!graph.has(from)) graph.set(from, new Map());
      if (!graph.get(from).has(to)) graph.get(from).set(to, `${relative('.', file)} imports '${specifier}'`);
    }
  }
  return graph;
}

/** Strongly connected components with more than one folder (Tarjan). */
function cycles(graph) {
  let index = 0;
  const indices = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const found = [];
  const visit = (node) => {
    indices.set(node, index);
    low.set(node, index++);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node)?.keys() ?? []) {
      if (!indices.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node), low.get(next)));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node), indices.get(next)));
      }
    }
    if (low.get(node) === indices.get(node)) {
      const component = [];
      let member;
      do {
        member = stack.pop();
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const node of graph.keys()) if (!indices.has(node)) visit(node);
  return found;
}

const roots = projectRoots(process.argv.length > 2 ? process.argv.slice(2) : ['libs', 'apps']);
let failures = 0;
for (const root of roots) {
  const src = join(root, 'src');
  if (!existsSync(src)) continue;
  const graph = folderGraph(src);
  for (const component of cycles(graph)) {
    failures++;
    console.error(`${root}: folders import each other in a cycle: ${component.join(', ')}`);
    for (const from of component) {
      for (const [to, why] of graph.get(from) ?? []) {
        if (component.includes(to)) console.error(`  ${from} -> ${to}: ${why}`);
      }
    }
  }
}
if (failures > 0) process.exit(1);
console.log(`no folder import cycles in ${roots.length} projects`);
