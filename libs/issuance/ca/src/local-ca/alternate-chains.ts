import { pemCertificateBlocks } from '@certlane/pki';

/** A cross-certificate on a leaf's default chain, and what follows it in its alternate chain. */
export interface CrossCertificateLink {
  /** The position of the cross-certified CA on the default chain (0: the issuing CA). */
  depth: number;
  /** The cross-certificate, then its parent's own chain up to its root (just the cross-certificate when its parent is not held here). */
  pem: string;
}

/**
 * The alternate chains of a leaf (ADR 0070), each like `chain_pem`: the default chain up to the
 * cross-certified CA, then the cross-certificate instead of that CA's own certificate, then the
 * cross-certificate's parent's chain. Undefined when there is none (so the field is left out).
 */
export function alternateChains(
  chainPem: string,
  links: readonly CrossCertificateLink[],
): string[] | undefined {
  if (links.length === 0) return undefined;
  const chain = pemCertificateBlocks(chainPem);
  return links.map((link) => chain.slice(0, link.depth).join('') + link.pem);
}
