import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsNotEmpty,
  IsOptional,
  IsString,
  Length,
  Matches,
  MaxLength,
} from 'class-validator';

export const ROUTING_SEVERITY_VALUES = ['info', 'warning', 'critical'] as const;

/**
 * The fields of a routing rule but its name, shared by create and update: a name is required on
 * create, and class-validator keeps a parent's @IsOptional on a redeclared property.
 */
export class RoutingRuleFields {
  @IsOptional()
  @IsBoolean()
  enabled?: boolean;

  /** Event types (docs/notifications.md); empty matches any. */
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(50)
  @IsString({ each: true })
  @Matches(/^[a-z]+\.[a-z_]+$/, {
    each: true,
    message: 'event_types must be event types such as certificate.expiring',
  })
  event_types?: string[];

  @IsOptional()
  @IsIn(ROUTING_SEVERITY_VALUES as unknown as string[], {
    message: `min_severity must be one of ${ROUTING_SEVERITY_VALUES.join(', ')}`,
  })
  min_severity?: (typeof ROUTING_SEVERITY_VALUES)[number];

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @IsString({ each: true })
  @Length(1, 255, { each: true })
  owner_ids?: string[];

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @IsString({ each: true })
  @Length(1, 255, { each: true })
  team_ids?: string[];

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @IsString({ each: true })
  @Length(1, 64, { each: true })
  environments?: string[];

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @IsString({ each: true })
  @Length(1, 255, { each: true })
  issuer_ids?: string[];

  /** The notifiers a matching event goes to; each must exist. */
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(50)
  @IsString({ each: true })
  @Length(1, 63, { each: true })
  notifier_ids?: string[];
}

/** The body of POST /api/v1/routing-rules. */
/** What PUT /api/v1/routing-rules/{id} may change; omitted fields are kept, a list replaces the old one. */
export class RoutingRuleChanges extends RoutingRuleFields {
  @IsOptional()
  @IsString()
  @IsNotEmpty({ message: 'name must not be empty' })
  @MaxLength(255)
  name?: string;
}

export class CreateRoutingRuleRequest extends RoutingRuleFields {
  @IsString()
  @Matches(/^[a-z0-9][a-z0-9-]{0,62}$/, {
    message: 'id must be 1 to 63 lowercase letters, digits or hyphens, not starting with a hyphen',
  })
  id!: string;

  @IsString({ message: 'name is required' })
  @IsNotEmpty({ message: 'name is required' })
  @MaxLength(255)
  name!: string;
}

export class RoutingRuleIdRequest {
  @IsString()
  @IsNotEmpty()
  @MaxLength(128)
  id!: string;
}

export class UpdateRoutingRuleRequest extends RoutingRuleChanges {
  @IsString()
  @IsNotEmpty()
  @MaxLength(128)
  id!: string;
}

/** A routing rule (docs/notifications.md, Routing). */
export interface RoutingRuleDto {
  id: string;
  name: string;
  enabled: boolean;
  event_types: string[];
  min_severity: (typeof ROUTING_SEVERITY_VALUES)[number];
  owner_ids: string[];
  team_ids: string[];
  environments: string[];
  issuer_ids: string[];
  notifier_ids: string[];
  created_at: string;
  updated_at: string;
}
