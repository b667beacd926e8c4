import { Transform } from 'class-transformer';
import { IsOptional, IsString, MaxLength } from 'class-validator';

export const SCEP_PROBE_LIMIT_MIN = 1;
export const SCEP_PROBE_LIMIT_MAX = 200;
export const SCEP_PROBE_LIMIT_DEFAULT = 50;
/** Spec 8: a probe gives up after 30 s and reads at most 1 MB per answer. */
export const SCEP_PROBE_TIMEOUT_MS = 30_000;
export const SCEP_PROBE_MAX_BYTES = 1_048_576;

/** A SCEP probe result (spec 2.17; ADR 0057). */
export interface ScepProbeResultDto {
  id: string;
  target_url: string;
  reachable: boolean;
  capabilities: string[];
  supports_rfc8894: boolean;
  supports_aes: boolean;
  supports_post: boolean;
  supports_renewal: boolean;
  supports_sha256: boolean;
  supports_sha512: boolean;
  ca_subject: string | null;
  ca_issuer: string | null;
  ca_not_before: string | null;
  ca_not_after: string | null;
  /** Recomputed at read time; negative once expired. */
  days_to_expiry: number | null;
  expired: boolean | null;
  /** RSA-<bits>, ECDSA-<curve>, Ed25519, DSA-<bits>. */
  key_algorithm: string | null;
  chain_length: number;
  probed_at: string;
  probe_duration_ms: number;
  error: string | null;
}

export interface ScepProbeList {
  probes: ScepProbeResultDto[];
  /** The limit applied, after clamping to 1..200. */
  limit: number;
}

/** The body of POST /api/v1/network-scan/scep-probe; an empty url is answered with an error in the result. */
export class ScepProbeRequest {
  @IsString({ message: 'url must be a string' })
  @MaxLength(2048, { message: 'url must be at most 2048 characters' })
  url!: string;
}

/** Spec 8: the limit is clamped to 1..200, never refused; anything not a number means the default. */
export const clampScepProbeLimit = ({ value }: { value: unknown }): number => {
  const parsed = typeof value === 'number' ? value : typeof value === 'string' ? Number(value) : NaN;
  if (!Number.isFinite(parsed)) return SCEP_PROBE_LIMIT_DEFAULT;
  return Math.min(SCEP_PROBE_LIMIT_MAX, Math.max(SCEP_PROBE_LIMIT_MIN, Math.trunc(parsed)));
};

export class ListScepProbesRequest {
  @IsOptional()
  @Transform(clampScepProbeLimit)
  limit?: number;
}
