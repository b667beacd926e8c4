import {
  IsIn,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  Length,
  Matches,
  MaxLength,
  ValidateIf,
} from 'class-validator';
import { RESOURCE_ID_PATTERN } from '../certificates/certificate.dto';
import { PageQuery } from '../pagination/page';

/**
 * The fifteen deployment target kinds (spec section 1; ADR 0026). The first ten run on an agent;
 * `ssh` is agentless (run from deployment-dispatch), and the last four talk to an API.
 */
export const TARGET_TYPES = [
  'nginx',
  'apache',
  'haproxy',
  'caddy',
  'traefik',
  'envoy',
  'postfix',
  'dovecot',
  'java_keystore',
  'iis',
  'ssh',
  'f5',
  'kubernetes_secret',
  'aws_acm',
  'azure_key_vault',
] as const;
export type TargetType = (typeof TARGET_TYPES)[number];

/** A deployment target as the API returns it: secret-bearing config values redacted, ciphertext never. */
export interface TargetDto {
  id: string;
  name: string;
  type: TargetType;
  /** The agent that deploys to it; null for agentless kinds without a proxy agent. */
  agent_id: string | null;
  config: Record<string, unknown>;
  /** `host:port` the target serves TLS on (connection test and verification); null when none. */
  endpoint: string | null;
  retired_at: string | null;
  created_at: string;
  updated_at: string;
}

const TYPE_MESSAGE = `type must be one of ${TARGET_TYPES.join(', ')}`;
const ENDPOINT_MESSAGE = 'endpoint must be host:port';
/** host:port, with a bracketed IPv6 host allowed. */
export const ENDPOINT_PATTERN = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9]([A-Za-z0-9.-]{0,252})?):\d{1,5}$/;

export class CreateTargetRequest {
  @IsOptional()
  @IsString({ message: 'id must be a string' })
  @Matches(RESOURCE_ID_PATTERN, {
    message:
      'id must be 1 to 128 lower-case letters, digits, ".", "_" or "-", starting with a letter or digit',
  })
  id?: string;

  @IsString({ message: 'name must be a string' })
  @Length(1, 255, { message: 'name must be 1 to 255 characters' })
  name!: string;

  @IsIn(TARGET_TYPES as unknown as string[], { message: TYPE_MESSAGE })
  type!: TargetType;

  @IsOptional()
  @IsString({ message: 'agent_id must be a string' })
  @MaxLength(128, { message: 'agent_id must be at most 128 characters' })
  agent_id?: string;

  @IsOptional()
  @IsObject({ message: 'config must be an object' })
  config?: Record<string, unknown>;

  @IsOptional()
  @IsString({ message: 'endpoint must be a string' })
  @Matches(ENDPOINT_PATTERN, { message: ENDPOINT_MESSAGE })
  endpoint?: string;
}

/**
 * PUT /api/v1/targets/{id}: present fields replace the stored ones; a secret-bearing config value
 * sent back as `********` keeps the stored secret; `type` may be repeated but not changed;
 * `agent_id` or `endpoint` null clears it.
 */
export class TargetChanges {
  @IsOptional()
  @IsString({ message: 'name must be a string' })
  @Length(1, 255, { message: 'name must be 1 to 255 characters' })
  name?: string;

  @IsOptional()
  @IsIn(TARGET_TYPES as unknown as string[], { message: TYPE_MESSAGE })
  type?: TargetType;

  @IsOptional()
  @ValidateIf((_, value) => value !== null)
  @IsString({ message: 'agent_id must be a string' })
  @MaxLength(128, { message: 'agent_id must be at most 128 characters' })
  agent_id?: string | null;

  @IsOptional()
  @IsObject({ message: 'config must be an object' })
  config?: Record<string, unknown>;

  @IsOptional()
  @ValidateIf((_, value) => value !== null)
  @IsString({ message: 'endpoint must be a string' })
  @Matches(ENDPOINT_PATTERN, { message: ENDPOINT_MESSAGE })
  endpoint?: string | null;
}

export class UpdateTargetRequest extends TargetChanges {
  @IsString()
  @IsNotEmpty()
  @MaxLength(128)
  id!: string;
}

export class TargetIdRequest {
  @IsString()
  @IsNotEmpty()
  @MaxLength(128)
  id!: string;
}

export class ListTargetsRequest extends PageQuery {
  @IsOptional()
  @IsString({ message: 'agent_id must be a string' })
  @MaxLength(128, { message: 'agent_id must be at most 128 characters' })
  agent_id?: string;

  @IsOptional()
  @IsIn(TARGET_TYPES as unknown as string[], { message: TYPE_MESSAGE })
  type?: TargetType;

  /** Retired targets (of retired agents) are listed only with `include_retired=true`. */
  @IsOptional()
  @IsIn(['true', 'false'], { message: 'include_retired must be true or false' })
  include_retired?: 'true' | 'false';
}

export interface TargetDeleted {
  id: string;
}

/** One check of a connection test. */
export interface TargetCheck {
  name: 'config' | 'agent' | 'reachability' | 'tls';
  ok: boolean;
  message: string;
}

/** POST /api/v1/targets/{id}/test: `status` is `ok` when every check passed, `failed` otherwise. */
export interface TargetTestResult {
  target_id: string;
  status: 'ok' | 'failed';
  checks: TargetCheck[];
  tested_at: string;
}
