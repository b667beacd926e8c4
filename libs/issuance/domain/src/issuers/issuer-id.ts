import { slugify } from '../renewal-policy-id';

/** `iss-<slug of name>` (ADR 0022), at most 64 characters; suffixed like renewal-policy ids when taken. */
export function issuerId(name: string): string {
  return `iss-${slugify(name).slice(0, 56).replace(/-+$/g, '') || 'issuer'}`;
}
