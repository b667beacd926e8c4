import { Transform } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsOptional,
  IsString,
  Length,
  Matches,
  Max,
  MaxLength,
} from 'class-validator';
import { PAGE_DEFAULT, PAGE_MAX, PageQuery, PER_PAGE_DEFAULT, PER_PAGE_MAX } from '../pagination/page';

/**
 * Agent ids. An agent authenticates as the actor `agent.<id>` (ADR 0026), and actor ids are at most
 * 64 characters (ACTOR_ID_PATTERN), so an agent id has at most 58.
 */
export const AGENT_ID_PATTERN = /^[a-z0-9][a-z0-9._-]{0,57}$/;
export const AGENT_ACTOR_PREFIX = 'agent.';
/** The actor id an agent's API key carries. */
export const agentActorId = (agentId: string): string => `${AGENT_ACTOR_PREFIX}${agentId}`;

/** The four reserved sentinel agents (spec 2.4): created at startup, never retirable. */
export const SENTINEL_AGENT_IDS = [
  'server-scanner',
  'cloud-aws-sm',
  'cloud-azure-sm',
  'cloud-gcp-sm',
] as const;

/** Derived from the age of the last heartbeat (ADR 0026); `Retired` once retired. */
export const AGENT_STATUSES = ['Online', 'Degraded', 'Offline', 'Retired'] as const;
export type AgentStatus = (typeof AGENT_STATUSES)[number];

/** An agent as the API returns it (spec 2.4). Never the API key, never its hash. */
export interface AgentDto {
  id: string;
  name: string;
  hostname: string;
  status: AgentStatus;
  last_heartbeat_at: string | null;
  registered_at: string;
  os: string;
  architecture: string;
  ip_address: string;
  version: string;
  /** One of the four reserved agents of spec 2.4. */
  sentinel: boolean;
  retired_at: string | null;
  retired_reason: string | null;
}

/** deployment-dispatch.v1.register-agent: the agent and, this once, its API key. */
export interface AgentRegistered {
  agent: AgentDto;
  /** Shown once; stored only as its SHA-256 hash. */
  api_key: string;
}

/** The answer of POST /api/v1/agents: the agent, plus its API key this once. */
export type AgentRegistrationResponse = AgentDto & { api_key: string };

const AGENT_ID_MESSAGE =
  'id must be 1 to 58 lower-case letters, digits, ".", "_" or "-", starting with a letter or digit';

export class RegisterAgentRequest {
  @IsOptional()
  @IsString({ message: 'id must be a string' })
  @Matches(AGENT_ID_PATTERN, { message: AGENT_ID_MESSAGE })
  id?: string;

  @IsString({ message: 'name must be a string' })
  @Length(1, 255, { message: 'name must be 1 to 255 characters' })
  name!: string;

  @IsString({ message: 'hostname must be a string' })
  @Length(1, 253, { message: 'hostname must be 1 to 253 characters' })
  hostname!: string;
}

export class AgentIdRequest {
  @IsString()
  @IsNotEmpty()
  @MaxLength(128)
  id!: string;
}

export class ListAgentsRequest extends PageQuery {}

/** GET /api/v1/agents/summary: no parameters. */
export class AgentSummaryRequest {}

/**
 * GET /api/v1/agents/summary: the fleet by status, counted in SQL over every agent (the four
 * sentinels apart), with the status rules of the list (ADR 0026): the dashboard's numbers.
 */
export interface AgentSummary {
  /** Agents not retired. */
  total: number;
  online: number;
  degraded: number;
  offline: number;
  retired: number;
  generated_at: string;
}

/** Query text to a number when it is an integer (negative too), with values below 1 read as `fallback`. */
const atLeastOneOr =
  (fallback: number) =>
  ({ value }: { value: unknown }): unknown => {
    const number = typeof value === 'string' && /^-?\d{1,15}$/.test(value) ? Number(value) : value;
    return typeof number === 'number' && number < 1 ? fallback : number;
  };

/**
 * GET /api/v1/agents/retired (spec 4.7): a page below 1 reads as 1 and a per_page below 1 as 50,
 * instead of 400. Text that is not an integer, or a per_page over 500, is still 400.
 */
export class ListRetiredAgentsQuery {
  @IsOptional()
  @Transform(atLeastOneOr(PAGE_DEFAULT))
  @IsInt({ message: 'page must be an integer' })
  @Max(PAGE_MAX, { message: `page must be at most ${PAGE_MAX}` })
  page?: number;

  @IsOptional()
  @Transform(atLeastOneOr(PER_PAGE_DEFAULT))
  @IsInt({ message: 'per_page must be an integer' })
  @Max(PER_PAGE_MAX, { message: `per_page must be at most ${PER_PAGE_MAX}` })
  per_page?: number;
}

export class ListRetiredAgentsRequest extends PageQuery {}

/** Host facts an agent may send with its heartbeat (spec 4.7). */
export class AgentHeartbeatBody {
  @IsOptional()
  @IsString({ message: 'version must be a string' })
  @MaxLength(128, { message: 'version must be at most 128 characters' })
  version?: string;

  @IsOptional()
  @IsString({ message: 'hostname must be a string' })
  @Length(1, 253, { message: 'hostname must be 1 to 253 characters' })
  hostname?: string;

  @IsOptional()
  @IsString({ message: 'os must be a string' })
  @MaxLength(128, { message: 'os must be at most 128 characters' })
  os?: string;

  @IsOptional()
  @IsString({ message: 'architecture must be a string' })
  @MaxLength(64, { message: 'architecture must be at most 64 characters' })
  architecture?: string;

  @IsOptional()
  @IsString({ message: 'ip_address must be a string' })
  @MaxLength(64, { message: 'ip_address must be at most 64 characters' })
  ip_address?: string;
}

export class AgentHeartbeatRequest extends AgentHeartbeatBody {
  @IsString()
  @IsNotEmpty()
  @MaxLength(128)
  id!: string;
}

/** DELETE /api/v1/agents/{id}?force=true&reason=... (spec 3, 4.7). */
export class RetireAgentRequest {
  @IsString()
  @IsNotEmpty()
  @MaxLength(128)
  id!: string;

  @IsOptional()
  @IsBoolean()
  force?: boolean;

  @IsOptional()
  @IsString({ message: 'reason must be a string' })
  @MaxLength(1024, { message: 'reason must be at most 1024 characters' })
  reason?: string;
}

/** The dependency counts of spec 2.4 that block a retirement without force. */
export interface AgentDependencyCounts {
  active_targets: number;
  active_certificates: number;
  pending_jobs: number;
}

/** The answer to a retirement: `already_retired` is the 204 case (no change, no audit). */
export interface AgentRetirement {
  already_retired: boolean;
  agent: AgentDto;
  forced: boolean;
  counts: AgentDependencyCounts;
  /** Targets retired with the agent (force only). */
  retired_target_ids: string[];
}

/** `deployment-dispatch.v1.agent.registered` */
export interface AgentRegisteredEvent {
  agent: AgentDto;
}

/**
 * `deployment-dispatch.v1.agent.retired`: one consumer revokes `api_key_id` at the auth service,
 * another (issuance) cancels the agent's waiting jobs with `reason` (ADR 0042).
 */
export interface AgentRetiredEvent {
  agent_id: string;
  api_key_id: string | null;
  forced: boolean;
  retired_target_ids: string[];
  /** The retirement's reason; absent in events written before it was carried. */
  reason?: string | null;
}

/** The SHA-256 (hex) of an API key, as agents store it (`api_key_hash`). */
export const KEY_HASH_PATTERN = /^[0-9a-f]{64}$/;

/**
 * `deployment-dispatch.v1.identify-retired-agent-key`: whether `key_hash` is the key retired agent
 * `id` was registered with (its heartbeat then answers 410, ADR 0042).
 */
export class RetiredAgentKeyRequest {
  @IsString()
  @IsNotEmpty()
  @MaxLength(128)
  id!: string;

  @Matches(KEY_HASH_PATTERN)
  key_hash!: string;
}

export interface RetiredAgentKeyAnswer {
  retired: boolean;
}

/** `issuance.v1.count-agent-dependencies`: what issuance holds for an agent. */
export class CountAgentDependenciesRequest {
  @IsString()
  @IsNotEmpty()
  @MaxLength(128)
  agent_id!: string;
}

export interface AgentIssuanceDependencies {
  /** Certificates with this agent_id that are neither Archived nor Revoked. */
  active_certificates: number;
  /** Jobs of this agent (or of its certificates) in Pending, AwaitingCSR, Running or AwaitingApproval. */
  pending_jobs: number;
}

/** The query of DELETE /api/v1/agents/{id}: `force` is `true` or `1` (or `false`/`0`). */
export class RetireAgentQuery {
  @IsOptional()
  @IsIn(['true', 'false', '1', '0'], { message: 'force must be true or false' })
  force?: string;

  @IsOptional()
  @IsString({ message: 'reason must be a string' })
  @MaxLength(1024, { message: 'reason must be at most 1024 characters' })
  reason?: string;
}
