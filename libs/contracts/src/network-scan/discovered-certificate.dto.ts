import { IsIn, IsNotEmpty, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { PageQuery } from '../pagination/page';
import { ServedCertificate } from '../health-checks/health-check.dto';

/** Discovered-certificate statuses (spec 2.14; the machine is ADR 0057's). */
export const DISCOVERED_CERTIFICATE_STATUSES = ['Unmanaged', 'Claimed', 'Dismissed'] as const;
export type DiscoveredCertificateStatus = (typeof DISCOVERED_CERTIFICATE_STATUSES)[number];
export const DISCOVERY_SOURCES = ['network', 'agent', 'cloud'] as const;
export type DiscoverySource = (typeof DISCOVERY_SOURCES)[number];

export interface DiscoverySighting {
  location: string;
  source: DiscoverySource;
  scan_id: string | null;
  first_seen_at: string;
  last_seen_at: string;
}

/** A discovered certificate; its id is its SHA-256 fingerprint (lowercase hex). */
export interface DiscoveredCertificateDto {
  id: string;
  subject: string;
  issuer: string;
  not_before: string;
  not_after: string;
  status: DiscoveredCertificateStatus;
  chain: ServedCertificate[];
  seen_at: DiscoverySighting[];
  /** The managed certificate a claim imported it as; null until claimed. */
  managed_certificate_id: string | null;
  first_seen_at: string;
  last_seen_at: string;
}

export interface DiscoveredCertificateSummary {
  total: number;
  unmanaged: number;
  claimed: number;
  dismissed: number;
  /** Unmanaged certificates whose notAfter has passed. */
  unmanaged_expired: number;
  generated_at: string;
}

export class ListDiscoveredCertificatesRequest extends PageQuery {
  @IsOptional()
  @IsIn(DISCOVERED_CERTIFICATE_STATUSES as unknown as string[], {
    message: `status must be one of ${DISCOVERED_CERTIFICATE_STATUSES.join(', ')}`,
  })
  status?: DiscoveredCertificateStatus;

  @IsOptional()
  @IsIn(DISCOVERY_SOURCES as unknown as string[], {
    message: `source must be one of ${DISCOVERY_SOURCES.join(', ')}`,
  })
  source?: DiscoverySource;
}

export class DiscoveredCertificateIdRequest {
  @IsString()
  @IsNotEmpty()
  @MaxLength(64)
  @Matches(/^[0-9a-f]{64}$/, { message: 'id must be a SHA-256 fingerprint: 64 lowercase hex digits' })
  id!: string;
}

export class DiscoveredCertificateSummaryRequest {}

/** Fields of POST /api/v1/discovered-certificates/{id}/claim: who owns the managed certificate. */
export class ClaimDiscoveredCertificateFields {
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  name?: string;

  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(128)
  owner_id?: string;

  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(128)
  team_id?: string;

  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(64)
  environment?: string;
}

export class ClaimDiscoveredCertificateRequest extends ClaimDiscoveredCertificateFields {
  @IsString()
  @IsNotEmpty()
  @MaxLength(64)
  @Matches(/^[0-9a-f]{64}$/, { message: 'id must be a SHA-256 fingerprint: 64 lowercase hex digits' })
  id!: string;
}
