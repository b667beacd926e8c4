/** `rp-<slug of name>` (spec 2.8): lower case, runs of other characters become one dash. */
export function slugify(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 120)
    .replace(/-+$/g, '');
}

export function renewalPolicyId(name: string): string {
  return `rp-${slugify(name) || 'policy'}`;
}

/**
 * Two names can share a slug ("Web TLS" and "web-tls"). The first keeps `rp-<slug>`; later ones
 * get the first free `-2`, `-3`... suffix (docs/decisions/0005-renewal-policy-ids.md).
 */
export function nextFreeId(baseId: string, taken: ReadonlySet<string>): string {
  if (!taken.has(baseId)) return baseId;
  for (let n = 2; ; n++) {
    const candidate = `${baseId}-${n}`;
    if (!taken.has(candidate)) return candidate;
  }
}
