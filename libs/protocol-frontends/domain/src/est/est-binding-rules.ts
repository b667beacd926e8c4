/** The names a certificate or a CSR gives its holder: the subject DN and the SubjectAltName entries. */
export interface HolderNames {
  /** The subject DN as RFC 4514 text. */
  subject: string;
  /** Each SAN as `type:value` (`dns:device.example`, `ip:192.0.2.1`). */
  sans: readonly string[];
}

/**
 * Why a simplereenroll CSR may not renew the certificate that authenticated the request (RFC
 * 7030 4.2.2: "The request Subject field and SubjectAltName extension MUST be identical to the
 * corresponding fields in the certificate being renewed/rekeyed"), or an empty list. SANs are
 * compared as sets (their order carries no meaning); ChangeSubjectName (RFC 6402) is not offered.
 */
export function reenrollProblems(request: HolderNames, current: HolderNames): string[] {
  const problems: string[] = [];
  if (request.subject !== current.subject)
    problems.push(
      `the CSR subject "${request.subject}" is not the subject of the certificate being renewed ("${current.subject}")`,
    );
  const requested = [...new Set(request.sans)].sort();
  const held = [...new Set(current.sans)].sort();
  if (requested.join('\n') !== held.join('\n'))
    problems.push(
      `the CSR SubjectAltName (${requested.join(', ') || 'none'}) is not that of the certificate being renewed (${held.join(', ') || 'none'})`,
    );
  return problems;
}

/**
 * Why a CSR does not carry the channel binding of the TLS connection it came over, or null
 * (RFC 7030 3.5 with RFC 9266 tls-exporter for TLS 1.3): the challengePassword holds the base64
 * of the connection's exporter value. Compared as text in full; a connection without a binding
 * value (no TLS) never matches.
 */
export function channelBindingProblem(
  challengePassword: string | undefined,
  tlsExporter: string | undefined,
): string | null {
  if (!tlsExporter) return 'the connection offers no tls-exporter channel binding';
  if (challengePassword === undefined)
    return 'the CSR has no challengePassword holding the tls-exporter channel binding';
  if (challengePassword.trim() !== tlsExporter)
    return 'the CSR challengePassword is not the tls-exporter channel binding of this connection';
  return null;
}
