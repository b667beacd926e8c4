import { ProfileDto } from '@certlane/contracts';
import { MessageBus } from '@certlane/platform';

const CERTIFICATE_PROFILE_TTL_MS = 1_000;
const CERTIFICATE_PROFILES_KEPT = 256;

/**
 * Certificate profiles (`issuance.v1.get-profile`) as EST and ACME enforce them, read at most
 * once a second per replica (ADR 0061): every enrollment or finalize under a profile naming one
 * needs its rules, and concurrent requests share one read.
 */
export class CertificateProfiles {
  private readonly cached = new Map<string, { at: number; profile: Promise<ProfileDto> }>();

  constructor(private readonly bus: MessageBus) {}

  get(id: string): Promise<ProfileDto> {
    const now = Date.now();
    const cached = this.cached.get(id);
    if (cached && now - cached.at < CERTIFICATE_PROFILE_TTL_MS) return cached.profile;
    if (this.cached.size >= CERTIFICATE_PROFILES_KEPT) this.cached.clear();
    const profile = this.bus.request('issuance.v1.get-profile', { id });
    this.cached.set(id, { at: now, profile });
    profile.catch(() => this.cached.delete(id));
    return profile;
  }
}
