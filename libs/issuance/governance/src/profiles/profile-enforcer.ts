import { Injectable } from '@nestjs/common';
import { CertlaneError, ErrorCode } from '@certlane/contracts';
import { checkCsrAgainstProfile, ProfileCsrFacts, ProfileRules } from '@certlane/issuance-domain';
import { EntityManager } from 'typeorm';
import { profileNotFound, ProfileRepository, ProfileRow } from './profile.repository';

/**
 * Throws 400 `profile_violation` when the CSR breaks a rule of the profile; the message and
 * `details.rule` name the rule (checkCsrAgainstProfile in libs/issuance/domain).
 */
export function assertCsrAllowed(csr: ProfileCsrFacts, profile: ProfileRules): void {
  const check = checkCsrAgainstProfile(csr, profile);
  if (!check.ok) {
    throw new CertlaneError(ErrorCode.ProfileViolation, check.message, {
      rule: check.rule,
      profile_id: profile.id,
    });
  }
}

/**
 * Profile enforcement for issuance and renewal of managed certificates (ADR 0025): the server
 * key generation runner and the agent CSR submission call it with the parsed CSR
 * (`parseCsr` of libs/pki) and the certificate's `profile_id`.
 */
@Injectable()
export class ProfileEnforcer {
  constructor(private readonly profiles: ProfileRepository) {}

  /**
   * The profile of a certificate, or null when it names none (''). A profile that vanished is
   * 404 profile_not_found (the foreign key makes that a race, not a state).
   */
  async profileOf(profileId: string, manager?: EntityManager): Promise<ProfileRow | null> {
    if (!profileId) return null;
    const row = await this.profiles.find(profileId, manager);
    if (!row) throw profileNotFound(profileId);
    return row;
  }

  /**
   * Checks `csr` against the certificate's profile: resolves to the profile (null without one) or
   * throws 400 `profile_violation` naming the broken rule in the message and `details.rule`.
   */
  async assertCsrAllowed(
    profileId: string,
    csr: ProfileCsrFacts,
    manager?: EntityManager,
  ): Promise<ProfileRow | null> {
    const profile = await this.profileOf(profileId, manager);
    if (profile) assertCsrAllowed(csr, profile);
    return profile;
  }
}
