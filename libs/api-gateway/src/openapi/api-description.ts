import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The API description as generated (tools/gen-openapi.mjs) and committed under docs/: the build
 * copies it next to dist (dist/openapi/), which is what an image ships; from a checkout the
 * committed file is read.
 */
export function readApiDescription(extension: 'json' | 'yaml'): string {
  const candidates = [
    join(__dirname, '../../../../openapi', `openapi.${extension}`),
    join(__dirname, '../../../../docs', `openapi.${extension}`),
  ];
  const found = candidates.find((file) => existsSync(file));
  if (!found) throw new Error(`the API description (openapi.${extension}) is missing: run npm run build`);
  return readFileSync(found, 'utf8');
}
