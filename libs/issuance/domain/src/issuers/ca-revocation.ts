/** What decides whether a CA of the local CA can be revoked (ADR 0075). */
export interface RevocableCa {
  id: string;
  status: 'active' | 'retired' | 'pending' | 'revoked';
  /** The issuer whose register records its serial; null only for CAs stored before issuers had one. */
  issuer_id: string | null;
  /** The CA held here that signed it; null for a root or a sub-CA of an external root. */
  parent_id: string | null;
  serial_hex: string | null;
}

/**
 * Why the CA cannot be revoked, or null when it can: only a CA signed here by a parent held here
 * (its serial is then on that parent's CRL), active or retired, and only once.
 */
export function caRevocationRefusal(ca: RevocableCa): string | null {
  if (ca.status === 'revoked') return `CA ${ca.id} is already revoked`;
  if (ca.status === 'pending') return `CA ${ca.id} is pending: it has no certificate to revoke`;
  if (!ca.parent_id) {
    return `CA ${ca.id} has no parent here: a root is retired, not revoked, and a sub-CA of an external root is revoked by that root`;
  }
  if (!ca.serial_hex) return `CA ${ca.id} has no serial to revoke`;
  if (!ca.issuer_id) return `CA ${ca.id} belongs to no issuer: no CRL of one can list it`;
  return null;
}
