import { isIP } from 'node:net';

export interface SanEntry {
  type: 'dns' | 'ip' | 'email' | 'uri';
  value: string;
}

const HOSTNAME = /^(\*\.)?[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/;

/**
 * The subjectAltNames a server-generated CSR asks for: the common name first when it is a host
 * name (clients ignore the CN), then the certificate's `sans`, each typed by its form, without
 * duplicates.
 */
export function subjectAltNamesFor(commonName: string, sans: readonly string[]): SanEntry[] {
  const out: SanEntry[] = [];
  const seen = new Set<string>();
  const add = (entry: SanEntry) => {
    const key = `${entry.type}:${entry.value.toLowerCase()}`;
    if (seen.has(key)) return;
    seen.add(key);
    out.push(entry);
  };
  if (HOSTNAME.test(commonName) && commonName.includes('.')) add({ type: 'dns', value: commonName });
  for (const value of sans) {
    if (isIP(value)) add({ type: 'ip', value });
    else if (value.includes('://')) add({ type: 'uri', value });
    else if (value.includes('@')) add({ type: 'email', value });
    else add({ type: 'dns', value });
  }
  return out;
}
