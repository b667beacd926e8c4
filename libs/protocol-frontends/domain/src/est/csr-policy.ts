/** What the CSR policy reads of a request (the server extracts it from the parsed PKCS#10). */
export interface CsrFacts {
  /** `RSASSA-PKCS1-v1_5`/`RSA-PSS`/`RSA` -> 'RSA', `ECDSA` -> 'EC', else the algorithm name. */
  keyAlgorithm: string;
  rsaBits?: number;
  curve?: string;
  commonName?: string;
  sanCount: number;
}

export const EST_ALLOWED_CURVES = ['P-256', 'P-384', 'P-521'] as const;
export const EST_MIN_RSA_BITS = 2048;

/**
 * Why a CSR may not be issued on an EST profile (`est_csr_policy_violation`), or an empty list:
 * RSA of at least 2048 bits, an EC key on P-256/P-384/P-521 or Ed25519, and something to name the
 * certificate (a subject CN or a SAN).
 */
export function csrPolicyProblems(facts: CsrFacts): string[] {
  const problems: string[] = [];
  if (facts.keyAlgorithm === 'RSA') {
    if ((facts.rsaBits ?? 0) < EST_MIN_RSA_BITS)
      problems.push(
        `RSA keys must have at least ${EST_MIN_RSA_BITS} bits (got ${facts.rsaBits ?? 'unknown'})`,
      );
  } else if (facts.keyAlgorithm === 'EC') {
    if (!(EST_ALLOWED_CURVES as readonly string[]).includes(facts.curve ?? ''))
      problems.push(`EC keys must be on ${EST_ALLOWED_CURVES.join(', ')} (got ${facts.curve ?? 'unknown'})`);
  } else if (facts.keyAlgorithm !== 'Ed25519') {
    problems.push(`key algorithm ${facts.keyAlgorithm} is not accepted`);
  }
  if (!facts.commonName && facts.sanCount === 0)
    problems.push('the CSR names nothing: no subject CN and no SAN');
  return problems;
}
