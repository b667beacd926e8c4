/** A name compared case-insensitively, without a trailing dot. */
const normalise = (name: string) => name.trim().toLowerCase().replace(/\.$/, '');

const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;

/**
 * The domain a certificate name is checked as, or null when it names no domain (IP addresses).
 * An e-mail address is checked by its domain; a URI by its host.
 */
export function domainOf(name: string): string | null {
  let value = normalise(name);
  if (value === '') return null;
  const uri = /^[a-z][a-z0-9+.-]*:\/\/([^/:?#]+)/.exec(value);
  if (uri) value = uri[1];
  else if (value.includes('@')) value = value.slice(value.lastIndexOf('@') + 1);
  if (IPV4.test(value) || value.includes(':') || value.startsWith('[')) return null;
  return value;
}

/**
 * AllowedDomains (spec 2.6, ADR 0028): `example.com` allows the domain and every name under it;
 * `.example.com` and `*.example.com` allow only names under it (one or more labels), never the
 * bare domain. A wildcard certificate name such as `*.example.com` is a name under example.com.
 */
export function domainAllowed(domain: string, patterns: readonly string[]): boolean {
  const name = normalise(domain);
  return patterns.some((raw) => {
    const pattern = normalise(raw);
    if (pattern === '') return false;
    if (pattern.startsWith('*.') || pattern.startsWith('.')) {
      const suffix = pattern.slice(pattern.indexOf('.'));
      return name.endsWith(suffix) && name.length > suffix.length;
    }
    return name === pattern || name.endsWith(`.${pattern}`);
  });
}
