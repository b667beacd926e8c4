/** The settings of a SCEP profile that must agree with each other, after a create or an update. */
export interface ScepProfileSettings {
  challenge_password_set: boolean;
  mtls_enabled: boolean;
  trust_bundle_pem: string | null;
  mdm_enabled: boolean;
  mdm_audience: string | null;
  mdm_trust_pem: string | null;
  /** Requests wait for a cert_issuance approval (PENDING; ADR 0065): any authorisation works with it. */
  approval_required: boolean;
}

/**
 * Why a profile's settings cannot serve SCEP, or an empty list: a PKCSReq must be authorised by
 * something (RFC 8894 2.3: a challenge password, here also an MDM-signed challenge or the client
 * certificate of the mTLS path); MDM needs the audience tokens must name and anchors to verify
 * them; mutual TLS a trust bundle.
 */
export function scepProfileProblems(settings: ScepProfileSettings): string[] {
  const problems: string[] = [];
  if (!settings.challenge_password_set && !settings.mdm_enabled && !settings.mtls_enabled)
    problems.push('a profile needs challenge_password, mdm_enabled or mtls_enabled to authorise requests');
  if (settings.mdm_enabled && !settings.mdm_audience) problems.push('MDM validation needs mdm_audience');
  if (settings.mdm_enabled && !settings.mdm_trust_pem)
    problems.push('MDM validation needs trust anchors (mdm_trust_path or mdm_trust_pem)');
  if (settings.mtls_enabled && !settings.trust_bundle_pem)
    problems.push('mutual TLS needs trust_bundle_path');
  return problems;
}
