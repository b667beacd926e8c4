import { IsIP, IsNotEmpty, IsOptional, IsString, Length, Matches, MaxLength } from 'class-validator';
import { PageQuery } from '../pagination/page';
import { ACTOR_ID_PATTERN } from './auth.dto';

/** Break-glass passwords: at least 16 characters (spec 5.7; ADR 0018); at most 1024 to bound the KDF input. */
export const BREAKGLASS_PASSWORD_MIN_LENGTH = 16;
export const BREAKGLASS_PASSWORD_MAX_LENGTH = 1024;
/** Spec 5.7 and 8: 5 login attempts per minute per source IP, across every gateway replica. */
export const BREAKGLASS_RATE_LIMIT = { attempts: 5, windowSeconds: 60 } as const;

const ACTOR_ID_MESSAGE = 'actor_id must be 2-64 characters of a-z, 0-9, ".", "_" or "-"';

/** POST /auth/breakglass/login. The password length is not checked here: a wrong one is simply wrong. */
export class BreakGlassLoginRequest {
  @IsString({ message: 'actor_id must be a string' })
  @Matches(ACTOR_ID_PATTERN, { message: ACTOR_ID_MESSAGE })
  actor_id!: string;

  @IsString({ message: 'password must be a string' })
  @IsNotEmpty({ message: 'password is required' })
  @MaxLength(BREAKGLASS_PASSWORD_MAX_LENGTH, {
    message: `password must be at most ${BREAKGLASS_PASSWORD_MAX_LENGTH} characters`,
  })
  password!: string;
}

export class BreakGlassLoginCommand extends BreakGlassLoginRequest {
  @IsIP()
  client_ip!: string;

  @IsOptional()
  @IsString()
  @MaxLength(2048)
  user_agent?: string;
}

/**
 * What the auth service hands the gateway after a successful login. `session_cookie` goes into
 * Set-Cookie only; the HTTP body is BreakGlassLoginResponse.
 */
export interface BreakGlassLoginResult {
  actor_id: string;
  session_id: string;
  expires_at: string;
  csrf_token: string;
  session_cookie: string;
}

/** The body of a successful POST /auth/breakglass/login (the session cookie is not in it). */
export interface BreakGlassLoginResponse {
  actor_id: string;
  session_id: string;
  expires_at: string;
  csrf_token: string;
}

/** A break-glass credential as the API shows it: never the password or its hash (spec 2.15). */
export interface BreakGlassCredentialDto {
  actor_id: string;
  locked: boolean;
  failed_attempts: number;
  created_at: string;
  updated_at: string;
  last_login_at: string | null;
}

export class ListBreakGlassCredentialsRequest extends PageQuery {}

/** POST /api/v1/auth/breakglass/credentials: sets or rotates a password. */
export class SetBreakGlassCredentialRequest {
  @IsString({ message: 'actor_id must be a string' })
  @Matches(ACTOR_ID_PATTERN, { message: ACTOR_ID_MESSAGE })
  actor_id!: string;

  @IsString({ message: 'password must be a string' })
  @Length(BREAKGLASS_PASSWORD_MIN_LENGTH, BREAKGLASS_PASSWORD_MAX_LENGTH, {
    message: `password must be ${BREAKGLASS_PASSWORD_MIN_LENGTH} to ${BREAKGLASS_PASSWORD_MAX_LENGTH} characters`,
  })
  password!: string;
}

export interface BreakGlassCredentialSet {
  credential: BreakGlassCredentialDto;
  /** True when the credential is new (201), false when its password was rotated (200). */
  created: boolean;
}

/** An actor id from a path (break-glass credentials, users); an id no actor can have is just unknown (404). */
export class ActorIdRequest {
  @IsString()
  @IsNotEmpty()
  @MaxLength(128)
  actor_id!: string;
}
