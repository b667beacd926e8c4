import {
  IsBoolean,
  IsIn,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
} from 'class-validator';

/** The six notifier kinds (spec 1; docs/notifications.md). */
export const NOTIFIER_KIND_VALUES = ['email', 'webhook', 'slack', 'teams', 'pagerduty', 'opsgenie'] as const;
export type NotifierKindValue = (typeof NOTIFIER_KIND_VALUES)[number];

/**
 * The fields of a notifier but its name, shared by create and update: a name is required on
 * create, and class-validator keeps a parent's @IsOptional on a redeclared property.
 */
export class NotifierFields {
  /** Non-secret settings: only the keys the kind declares (and the delivery limits), stored and answered in clear. */
  @IsOptional()
  @IsObject({ message: 'settings must be an object' })
  settings?: Record<string, unknown>;

  /** Secrets of the kind (URLs with tokens, keys, passwords): sealed, write-only, never answered. */
  @IsOptional()
  @IsObject({ message: 'secrets must be an object' })
  secrets?: Record<string, unknown>;

  @IsOptional()
  @IsBoolean()
  enabled?: boolean;
}

/** What PUT /api/v1/notifiers/{id} may change; omitted fields are kept, `secrets` replaces them all. */
export class NotifierChanges extends NotifierFields {
  @IsOptional()
  @IsString()
  @IsNotEmpty({ message: 'name must not be empty' })
  @MaxLength(255)
  name?: string;
}

/** The body of POST /api/v1/notifiers. */
export class CreateNotifierRequest extends NotifierFields {
  @IsString()
  @Matches(/^[a-z0-9][a-z0-9-]{0,62}$/, {
    message: 'id must be 1 to 63 lowercase letters, digits or hyphens, not starting with a hyphen',
  })
  id!: string;

  @IsString({ message: 'name is required' })
  @IsNotEmpty({ message: 'name is required' })
  @MaxLength(255)
  name!: string;

  @IsIn(NOTIFIER_KIND_VALUES as unknown as string[], {
    message: `kind must be one of ${NOTIFIER_KIND_VALUES.join(', ')}`,
  })
  kind!: NotifierKindValue;
}

export class NotifierIdRequest {
  @IsString()
  @IsNotEmpty()
  @MaxLength(128)
  id!: string;
}

export class UpdateNotifierRequest extends NotifierChanges {
  @IsString()
  @IsNotEmpty()
  @MaxLength(128)
  id!: string;
}

/** A notifier as the API shows it: secrets only by name, never their values. */
export interface NotifierDto {
  id: string;
  name: string;
  kind: NotifierKindValue;
  settings: Record<string, unknown>;
  /** The names of the stored secrets (write-only: the values are never answered). */
  secret_fields: string[];
  enabled: boolean;
  created_at: string;
  updated_at: string;
}

/** POST /api/v1/notifiers/{id}/test: one test notification sent through the real connector. */
export interface NotifierTestResult {
  delivered: boolean;
  /** The delivery failure (receiver status, refused address, timeout); null when delivered. */
  error: string | null;
}
