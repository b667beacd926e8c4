import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsIn,
  IsNotEmpty,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
} from 'class-validator';
import { PageQuery } from '../pagination/page';
import { ServedCertificate } from '../health-checks/health-check.dto';

/** Discovered-certificate statuses (spec 2.14; the machine is ADR 0057's). */
export const DISCOVERED_CERTIFICATE_STATUSES = ['Unmanaged', 'Claimed', 'Dismissed'] as const;
export type DiscoveredCertificateStatus = (typeof DISCOVERED_CERTIFICATE_STATUSES)[number];
export const DISCOVERY_SOURCES = ['network', 'agent', 'cloud'] as const;
/** Whether a certificate is still seen somewhere (ADR 0063; a second axis beside the status). */
export const DISCOVERY_PRESENCES = ['present', 'gone'] as const;
export type DiscoveryPresenceFilter = (typeof DISCOVERY_PRESENCES)[number];
export type DiscoverySource = (typeof DISCOVERY_SOURCES)[number];

export interface DiscoverySighting {
  location: string;
  source: DiscoverySource;
  scan_id: string | null;
  first_seen_at: string;
  last_seen_at: string;
  /** When a complete run of this place's scope no longer found it; null while it is seen. */
  gone_at: string | null;
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
  /** When its last present sighting went (no place still serves or holds it); null while seen. */
  gone_at: string | null;
}

/**
 * The event of a certificate's first sighting (a fingerprint not seen before), from any discovery
 * source: the notifier turns it into `discovery.found` (docs/notifications.md).
 */
export interface DiscoveredCertificateFound {
  fingerprint: string;
  subject: string;
  issuer: string;
  not_before: string;
  not_after: string;
  /** Where it was first seen: `network:<host>:<port>`, `agent:<agent id>:<path>`, `cloud:<provider>:<name>`. */
  location: string;
  source: DiscoverySource;
  scan_id: string | null;
  found_at: string;
}

export interface DiscoveredCertificateSummary {
  total: number;
  unmanaged: number;
  claimed: number;
  dismissed: number;
  /** Unmanaged certificates whose notAfter has passed. */
  unmanaged_expired: number;
  /** Certificates no longer seen anywhere (any status). */
  gone: number;
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

  @IsOptional()
  @IsIn(DISCOVERY_PRESENCES as unknown as string[], {
    message: `presence must be one of ${DISCOVERY_PRESENCES.join(', ')}`,
  })
  presence?: DiscoveryPresenceFilter;
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

/** Ids one bulk claim or dismiss takes at most (a claim is an import each). */
export const DISCOVERY_BULK_IDS_MAX = 100;

/** The body of POST /api/v1/discovered-certificates/bulk-dismiss (ADR 0063). */
export class BulkDismissDiscoveredCertificatesRequest {
  @IsArray({ message: 'ids must be an array of discovered-certificate ids' })
  @ArrayMinSize(1, { message: 'ids must name at least one discovered certificate' })
  @ArrayMaxSize(DISCOVERY_BULK_IDS_MAX, { message: `ids must name at most ${DISCOVERY_BULK_IDS_MAX}` })
  @IsString({ each: true })
  @Matches(/^[0-9a-f]{64}$/, {
    each: true,
    message: 'ids must be SHA-256 fingerprints: 64 lowercase hex digits',
  })
  ids!: string[];
}

/** The body of POST /api/v1/discovered-certificates/bulk-claim: one owner for every import. */
export class BulkClaimDiscoveredCertificatesRequest extends BulkDismissDiscoveredCertificatesRequest {
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

/** One certificate a bulk call could not move: its id, the error code and message a single call would answer. */
export interface DiscoveryBulkItemError {
  id: string;
  code: string;
  message: string;
}

/**
 * The answer of a bulk claim or dismiss (per-item partial failure, one audit event per call):
 * `changed` lists the certificates moved, `unchanged` those already in the asked status (dismiss
 * only), `errors` those refused (unknown, already claimed, not importable, import refused).
 */
export interface DiscoveryBulkResult {
  total_requested: number;
  total_changed: number;
  total_unchanged: number;
  total_failed: number;
  changed: { id: string; status: DiscoveredCertificateStatus; managed_certificate_id: string | null }[];
  unchanged: string[];
  errors: DiscoveryBulkItemError[];
}
