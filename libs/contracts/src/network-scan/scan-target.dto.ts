import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
} from 'class-validator';
import { PageQuery } from '../pagination/page';

export const SCAN_CONCURRENCY_MAX = 256;
export const SCAN_RATE_MAX = 10_000;
export const SCAN_CONCURRENCY_DEFAULT = 32;
export const SCAN_RATE_DEFAULT = 100;
/** Scheduled scans: every 15 minutes at most often, every 30 days at least (ADR 0063). */
export const SCAN_SCHEDULE_MIN_SECONDS = 900;
export const SCAN_SCHEDULE_MAX_SECONDS = 2_592_000;
export const NETWORK_SCAN_STATUSES = ['running', 'completed', 'failed'] as const;
export type NetworkScanStatus = (typeof NETWORK_SCAN_STATUSES)[number];

/** A network scan target (spec 2.14, 4.12; ADR 0057): what a scan of it probes, and how fast. */
export interface ScanTargetDto {
  id: string;
  name: string;
  cidrs: string[];
  hosts: string[];
  ports: number[];
  /** Probes in flight at once. */
  concurrency: number;
  /** New connections per second at most. */
  rate_per_second: number;
  /** A scheduled scan every this many seconds (900..2,592,000); null: scans only when triggered. */
  schedule_seconds: number | null;
  /** When the scheduler starts the next scan; null without a schedule. */
  next_scan_at: string | null;
  /** Endpoints (address x port) a scan of this target probes. */
  endpoints: number;
  last_scan_id: string | null;
  created_at: string;
  updated_at: string;
}

export interface ScanTargetDeleted {
  id: string;
}

/** One scan: its progress and counts. */
export interface NetworkScanDto {
  id: string;
  target_id: string | null;
  status: NetworkScanStatus;
  cidrs: string[];
  hosts: string[];
  ports: number[];
  endpoints_total: number;
  endpoints_done: number;
  certificates_found: number;
  started_by: string;
  /** Started by the scan scheduler (started_by is then `system`) rather than a trigger. */
  scheduled: boolean;
  started_at: string;
  finished_at: string | null;
  error: string | null;
}

/** Fields of PUT /api/v1/network-scan/targets/{id}: those left out keep their value. */
export class ScanTargetChanges {
  @IsOptional()
  @IsString()
  @IsNotEmpty({ message: 'name must not be empty' })
  @MaxLength(200)
  name?: string;

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(256)
  @IsString({ each: true, message: 'cidrs must be CIDR ranges' })
  @MaxLength(64, { each: true })
  cidrs?: string[];

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(4096)
  @IsString({ each: true, message: 'hosts must be host names or addresses' })
  @MaxLength(253, { each: true })
  hosts?: string[];

  @IsOptional()
  @IsArray()
  @ArrayMinSize(1, { message: 'ports must name at least one port' })
  @ArrayMaxSize(64)
  @IsInt({ each: true, message: 'ports must be integers 1 to 65535' })
  @Min(1, { each: true, message: 'ports must be integers 1 to 65535' })
  @Max(65_535, { each: true, message: 'ports must be integers 1 to 65535' })
  ports?: number[];

  @IsOptional()
  @IsInt({ message: 'concurrency must be an integer' })
  @Min(1, { message: 'concurrency must be 1 to 256' })
  @Max(SCAN_CONCURRENCY_MAX, { message: 'concurrency must be 1 to 256' })
  concurrency?: number;

  @IsOptional()
  @IsInt({ message: 'rate_per_second must be an integer' })
  @Min(1, { message: 'rate_per_second must be 1 to 10000' })
  @Max(SCAN_RATE_MAX, { message: 'rate_per_second must be 1 to 10000' })
  rate_per_second?: number;

  /** Seconds between scheduled scans; null (on update) removes the schedule. */
  @IsOptional()
  @IsInt({ message: 'schedule_seconds must be an integer or null' })
  @Min(SCAN_SCHEDULE_MIN_SECONDS, { message: 'schedule_seconds must be 900 to 2592000, or null' })
  @Max(SCAN_SCHEDULE_MAX_SECONDS, { message: 'schedule_seconds must be 900 to 2592000, or null' })
  schedule_seconds?: number | null;
}

export class CreateScanTargetRequest extends ScanTargetChanges {}

export class ScanTargetIdRequest {
  @IsString()
  @IsNotEmpty()
  @MaxLength(128)
  id!: string;
}

export class UpdateScanTargetRequest extends ScanTargetChanges {
  @IsString()
  @IsNotEmpty()
  @MaxLength(128)
  id!: string;
}

export class ListScanTargetsRequest extends PageQuery {}

export class ListNetworkScansRequest extends PageQuery {
  @IsOptional()
  @IsString()
  @MaxLength(128)
  target_id?: string;

  @IsOptional()
  @IsIn(NETWORK_SCAN_STATUSES as unknown as string[], {
    message: `status must be one of ${NETWORK_SCAN_STATUSES.join(', ')}`,
  })
  status?: NetworkScanStatus;
}

export class NetworkScanIdRequest {
  @IsString()
  @IsNotEmpty()
  @MaxLength(128)
  id!: string;
}
