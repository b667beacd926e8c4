import {
  IsBoolean,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateIf,
} from 'class-validator';
import { PageQuery } from '../pagination/page';

/** Endpoint health-check statuses (spec 2.13, 3; ADR 0057). */
export const HEALTH_CHECK_STATUSES = ['healthy', 'degraded', 'down', 'cert_mismatch'] as const;
export type HealthCheckStatus = (typeof HEALTH_CHECK_STATUSES)[number];

export const HEALTH_CHECK_INTERVAL_MIN = 60;
export const HEALTH_CHECK_INTERVAL_MAX = 86_400;
export const HEALTH_CHECK_INTERVAL_DEFAULT = 300;
/**
 * Plain-text protocols a check can upgrade with STARTTLS before the handshake (a mail server's
 * certificate on 25/587 or 143): SMTP (RFC 3207) and IMAP (RFC 3501 6.2.1).
 */
export const HEALTH_CHECK_STARTTLS = ['smtp', 'imap'] as const;
export type HealthCheckStartTls = (typeof HEALTH_CHECK_STARTTLS)[number];

/** Results kept per check; older ones are dropped as new ones arrive. */
export const HEALTH_CHECK_HISTORY_MAX = 500;

/** A DNS name or an IP literal (no scheme, no port, no path). */
const HOST_PATTERN =
  /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)*[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.?$|^[0-9A-Fa-f:.]+$/;
const HOST_MESSAGE = (field: string) =>
  `${field} must be a DNS name or an IP address (no scheme, port or path)`;
/** SHA-256 as 64 hex digits, optionally colon-separated pairs. */
const FINGERPRINT_PATTERN = /^(?:[0-9A-Fa-f]{64}|(?:[0-9A-Fa-f]{2}:){31}[0-9A-Fa-f]{2})$/;
const FINGERPRINT_MESSAGE =
  'expected_fingerprint must be a SHA-256 fingerprint: 64 hex digits, colons allowed';

/** One certificate of the chain an endpoint served. */
export interface ServedCertificate {
  subject: string;
  issuer: string;
  fingerprint_sha256: string;
  not_before: string;
  not_after: string;
}

/** An endpoint health check (spec 2.13; ADR 0057). */
export interface HealthCheckDto {
  id: string;
  name: string;
  host: string;
  port: number;
  /** The TLS server name sent; null = the host when it is a DNS name, none for an IP. */
  sni: string | null;
  /** The protocol spoken before the handshake (STARTTLS); null = TLS from the first byte. */
  starttls: HealthCheckStartTls | null;
  /** SHA-256 of the certificate the endpoint should serve, lowercase hex; null = any valid one. */
  expected_fingerprint: string | null;
  interval_seconds: number;
  enabled: boolean;
  status: HealthCheckStatus;
  consecutive_failures: number;
  acknowledged: boolean;
  acknowledged_at: string | null;
  acknowledged_by: string | null;
  status_changed_at: string;
  last_checked_at: string | null;
  next_check_at: string;
  last_error: string | null;
  last_fingerprint: string | null;
  last_not_after: string | null;
  created_at: string;
  updated_at: string;
}

/** One probe of a health check, as its history keeps it. */
export interface HealthCheckResultDto {
  id: string;
  health_check_id: string;
  checked_at: string;
  /** The handshake completed and the certificate was inside its validity window. */
  success: boolean;
  /** The check's status after this result. */
  status: HealthCheckStatus;
  handshake_ms: number | null;
  tls_version: string | null;
  fingerprint: string | null;
  not_after: string | null;
  chain: ServedCertificate[];
  error: string | null;
}

export interface HealthCheckSummary {
  total: number;
  healthy: number;
  degraded: number;
  down: number;
  cert_mismatch: number;
  /** Checks not healthy and acknowledged. */
  acknowledged: number;
  /** Checks not healthy and not acknowledged: what needs someone's attention. */
  alerting: number;
  generated_at: string;
}

export interface HealthCheckDeleted {
  id: string;
}

/**
 * The fields of a health check but its host, shared by create and update: a host is required on
 * create, and class-validator keeps a parent's @IsOptional on a redeclared property.
 */
class HealthCheckFields {
  @IsOptional()
  @IsString()
  @MaxLength(255)
  name?: string;

  @IsOptional()
  @IsInt({ message: 'port must be an integer' })
  @Min(1, { message: 'port must be 1 to 65535' })
  @Max(65_535, { message: 'port must be 1 to 65535' })
  port?: number;

  /** null clears it. */
  @IsOptional()
  @ValidateIf((_, value) => value !== null)
  @IsString()
  @MaxLength(253)
  @Matches(HOST_PATTERN, { message: HOST_MESSAGE('sni') })
  sni?: string | null;

  /** null: TLS from the first byte (the default). */
  @IsOptional()
  @ValidateIf((_, value) => value !== null)
  @IsIn(HEALTH_CHECK_STARTTLS, {
    message: `starttls must be one of ${HEALTH_CHECK_STARTTLS.join(', ')}, or null`,
  })
  starttls?: HealthCheckStartTls | null;

  /** null clears it. */
  @IsOptional()
  @ValidateIf((_, value) => value !== null)
  @IsString()
  @Matches(FINGERPRINT_PATTERN, { message: FINGERPRINT_MESSAGE })
  expected_fingerprint?: string | null;

  @IsOptional()
  @IsInt({ message: 'interval_seconds must be an integer' })
  @Min(HEALTH_CHECK_INTERVAL_MIN, {
    message: `interval_seconds must be ${HEALTH_CHECK_INTERVAL_MIN} to ${HEALTH_CHECK_INTERVAL_MAX}`,
  })
  @Max(HEALTH_CHECK_INTERVAL_MAX, {
    message: `interval_seconds must be ${HEALTH_CHECK_INTERVAL_MIN} to ${HEALTH_CHECK_INTERVAL_MAX}`,
  })
  interval_seconds?: number;

  @IsOptional()
  @IsBoolean()
  enabled?: boolean;
}

/** Fields of PUT /api/v1/health-checks/{id}: those left out keep their value. */
export class HealthCheckChanges extends HealthCheckFields {
  @IsOptional()
  @IsString()
  @MaxLength(253)
  @Matches(HOST_PATTERN, { message: HOST_MESSAGE('host') })
  host?: string;
}

/** The body of POST /api/v1/health-checks. */
export class CreateHealthCheckRequest extends HealthCheckFields {
  @IsString({ message: 'host is required' })
  @IsNotEmpty({ message: 'host is required' })
  @MaxLength(253)
  @Matches(HOST_PATTERN, { message: HOST_MESSAGE('host') })
  host!: string;
}

export class HealthCheckIdRequest {
  @IsString()
  @IsNotEmpty()
  @MaxLength(128)
  id!: string;
}

export class UpdateHealthCheckRequest extends HealthCheckChanges {
  @IsString()
  @IsNotEmpty()
  @MaxLength(128)
  id!: string;
}

export class ListHealthChecksRequest extends PageQuery {
  @IsOptional()
  @IsIn(HEALTH_CHECK_STATUSES as unknown as string[], {
    message: `status must be one of ${HEALTH_CHECK_STATUSES.join(', ')}`,
  })
  status?: HealthCheckStatus;
}

export class ListHealthCheckHistoryRequest extends PageQuery {
  @IsString()
  @IsNotEmpty()
  @MaxLength(128)
  id!: string;
}

export class HealthCheckSummaryRequest {}

/** The event the notifier consumes when a check's status changes (ADR 0057). */
export interface HealthCheckStatusChanged {
  health_check_id: string;
  name: string;
  host: string;
  port: number;
  from: HealthCheckStatus;
  to: HealthCheckStatus;
  error: string | null;
  changed_at: string;
}
