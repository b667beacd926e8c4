#!/usr/bin/env node
// Summarizes a V8 .cpuprofile (from BENCH_CPU_PROF=1): self time by area (npm package, node
// internals, Certlane code, GC, idle) and the hottest functions, as shares of the busy time.
//
//   node bench/gateway-roundtrip/profile-summary.mjs <file.cpuprofile> [--top 25]
//        [--results bench/results/gateway-roundtrip-<ts>.json [--run gateway_saturated|hello_tls|hello_plain|fixed_rate|hops.<name>] [--round 1]]
//
// With --results, only the samples taken during that run's measurement window are counted
// (run.mjs records each window on CLOCK_MONOTONIC, the clock V8 profiles use), so start-up and
// the other phases do not blur the picture. Default run: gateway_saturated of round 1.
import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  if (i < 0) return fallback;
  const [value] = args.splice(i, 2).slice(1);
  return value;
};
const top = Number(option('top', 25));
const resultsFile = option('results');
const runName = option('run', 'gateway_saturated');
const roundNo = Number(option('round', 1));
const [file] = args;
if (!file) {
  console.error(
    'usage: profile-summary.mjs <file.cpuprofile> [--top N] [--results results.json [--run name] [--round N]]',
  );
  process.exit(64);
}
const profile = JSON.parse(readFileSync(file, 'utf8'));

let window;
if (resultsFile) {
  const results = JSON.parse(readFileSync(resultsFile, 'utf8'));
  const run = runName.startsWith('hops.')
    ? results.hops?.[runName.slice(5)]
    : runName === 'fixed_rate'
      ? results.fixed_rate
      : results.rounds?.[roundNo - 1]?.[runName];
  if (!run?.window_monotonic_us) {
    console.error(`no measurement window for run ${runName} in ${resultsFile}`);
    process.exit(65);
  }
  window = run.window_monotonic_us;
}

const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const selfMicros = new Map();
let at = profile.startTime;
for (let i = 0; i < profile.samples.length; i++) {
  const delta = profile.timeDeltas[i] ?? 0;
  at += delta;
  if (window && (at < window.start || at > window.end)) continue;
  const id = profile.samples[i];
  selfMicros.set(id, (selfMicros.get(id) ?? 0) + delta);
}

function area(frame) {
  const { url, functionName } = frame;
  if (!url) {
    if (functionName === '(idle)') return '(idle)';
    if (functionName === '(garbage collector)') return '(garbage collector)';
    if (functionName === '(program)') return '(program: native, not attributed)';
    return `(native) ${functionName || 'anonymous'}`;
  }
  if (url.startsWith('node:'))
    return `node:${url
      .slice(5)
      .split('/')[0]
      .replace(/^internal$/, 'internal/' + url.split('/')[1])}`;
  const modules = url.lastIndexOf('node_modules/');
  if (modules >= 0) {
    const rest = url.slice(modules + 'node_modules/'.length).split('/');
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  const dist = /\/dist\/(.*)$/.exec(url);
  if (dist) return `certlane ${dist[1].split('/').slice(0, 3).join('/')}`;
  return url.replace(/^file:\/\//, '');
}

const areas = new Map();
const functions = new Map();
let total = 0;
let idle = 0;
for (const [id, micros] of selfMicros) {
  const frame = byId.get(id).callFrame;
  const a = area(frame);
  total += micros;
  if (a === '(idle)') {
    idle += micros;
    continue;
  }
  areas.set(a, (areas.get(a) ?? 0) + micros);
  const where = frame.url
    ? `${frame.url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*\/dist\//, 'dist/')}:${frame.lineNumber + 1}`
    : '';
  const key = `${frame.functionName || '(anonymous)'} ${where}`.trim();
  functions.set(key, (functions.get(key) ?? 0) + micros);
}
const busy = total - idle;
const pct = (micros) => `${((100 * micros) / busy).toFixed(1).padStart(5)}%`;
console.log(
  `${file}${window ? ` (window of ${runName}: ${((window.end - window.start) / 1e6).toFixed(1)} s)` : ''}\n  profiled ${(total / 1e6).toFixed(1)} s, busy ${(busy / 1e6).toFixed(1)} s, idle ${(idle / 1e6).toFixed(1)} s\n`,
);
console.log('Self time by area (share of busy time):');
for (const [a, micros] of [...areas].sort((x, y) => y[1] - x[1]).slice(0, top))
  console.log(`  ${pct(micros)}  ${a}`);
console.log('\nHottest functions (self time):');
for (const [f, micros] of [...functions].sort((x, y) => y[1] - x[1]).slice(0, top))
  console.log(`  ${pct(micros)}  ${f}`);
