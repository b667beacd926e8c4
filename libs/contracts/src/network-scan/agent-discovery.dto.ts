import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  MinLength,
  ValidateNested,
} from 'class-validator';
import { AGENT_ID_PATTERN } from '../agents/agent.dto';

/** The file formats an agent's filesystem discovery reads certificates from (ADR 0063). */
export const AGENT_DISCOVERY_FORMATS = ['pem', 'der', 'pkcs12', 'jks'] as const;
export type AgentDiscoveryFormat = (typeof AGENT_DISCOVERY_FORMATS)[number];

/** Findings one push carries at most (the agent sends more in several pushes). */
export const AGENT_DISCOVERY_FINDINGS_MAX = 200;

/** Exactly one PEM certificate block: nothing else (no key block) is accepted. */
export const SINGLE_CERTIFICATE_PEM =
  /^-----BEGIN CERTIFICATE-----\r?\n(?:[A-Za-z0-9+/=]{1,76}\r?\n)+-----END CERTIFICATE-----\r?\n?$/;

/** One certificate found in one file. */
export class AgentDiscoveryFinding {
  /** The file's absolute path on the agent's host. */
  @IsString()
  @MinLength(1)
  @MaxLength(4096)
  @Matches(/^[^\u0000-\u001f\u007f]+$/, { message: 'path must not contain control characters' })
  path!: string;

  @IsIn(AGENT_DISCOVERY_FORMATS as unknown as string[], {
    message: `format must be one of ${AGENT_DISCOVERY_FORMATS.join(', ')}`,
  })
  format!: AgentDiscoveryFormat;

  @IsString()
  @MaxLength(16_384)
  @Matches(SINGLE_CERTIFICATE_PEM, {
    message: 'certificate_pem must be exactly one PEM CERTIFICATE block',
  })
  certificate_pem!: string;
}

/** The body of POST /api/v1/agents/{id}/discovery: certificates found on the agent's host. */
export class AgentDiscoveryBody {
  @IsArray({ message: 'findings must be an array' })
  @ArrayMaxSize(AGENT_DISCOVERY_FINDINGS_MAX, {
    message: `findings must hold at most ${AGENT_DISCOVERY_FINDINGS_MAX} items per push`,
  })
  @IsObject({ each: true, message: 'each finding must be an object' })
  @ValidateNested({ each: true })
  @Type(() => AgentDiscoveryFinding)
  findings!: AgentDiscoveryFinding[];

  /** One id for every push of one walk of the configured directories (ADR 0063). */
  @IsOptional()
  @IsString()
  @Matches(/^[A-Za-z0-9_-]{8,64}$/, {
    message: 'walk_id must be 8-64 characters of A-Z, a-z, 0-9, "_" or "-"',
  })
  walk_id?: string;

  /**
   * Set on the last push of a walk that read every configured directory to the end (requires
   * walk_id): what this agent found before and this walk did not is then marked gone.
   */
  @IsOptional()
  @IsBoolean({ message: 'walk_complete must be a boolean' })
  walk_complete?: boolean;
}

export class PushAgentDiscoveryRequest extends AgentDiscoveryBody {
  @IsString()
  @Matches(AGENT_ID_PATTERN, {
    message: 'agent id must be 1-58 characters of a-z, 0-9, ".", "_" or "-", starting with a letter or digit',
  })
  agent_id!: string;
}

/** The answer of a discovery push. */
export interface AgentDiscoveryAccepted {
  /** Findings in the push. */
  received: number;
  /** Distinct certificates among them. */
  certificates: number;
  /** Certificates never discovered before this push. */
  new_certificates: number;
  /** Certificates this agent saw before that a complete walk no longer found and no place still has; 0 otherwise. */
  gone_certificates: number;
}
