import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Every regular file under `root` (recursively). */
export function filesUnder(root: string): string[] {
  return readdirSync(root, { recursive: true, encoding: 'utf8' })
    .map((f) => join(root, f))
    .filter((f) => statSync(f).isFile());
}

/** The text of every file under `root` that holds a PEM private key (for recordSecrets). */
export function privateKeysUnder(root: string, skip: (path: string) => boolean = () => false): string[] {
  return filesUnder(root)
    .filter((f) => !skip(f))
    .map((f) => readFileSync(f, 'utf8'))
    .filter((text) => text.includes('PRIVATE KEY'));
}

/** A PEM's base64 body on one line (no armour lines), to look for the key in other text. */
export function pemBody(pem: string): string {
  return pem
    .split('\n')
    .filter((line) => line && !line.startsWith('-----'))
    .join('');
}
