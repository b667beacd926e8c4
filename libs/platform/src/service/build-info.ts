import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** What `tools/build.mjs` stamped into dist/build-info.json (GET /api/v1/version). */
export interface BuildInfo {
  version: string;
  commit: string;
  modified: string;
  build_time: string;
}

export function readBuildInfo(from: string = __dirname): BuildInfo {
  let dir = from;
  for (;;) {
    for (const candidate of [join(dir, 'build-info.json'), join(dir, 'dist', 'build-info.json')]) {
      if (existsSync(candidate)) return JSON.parse(readFileSync(candidate, 'utf8')) as BuildInfo;
    }
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return { version: '0.0.0-dev', commit: 'unknown', modified: 'true', build_time: 'unknown' };
}
