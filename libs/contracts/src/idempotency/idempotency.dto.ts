import { Allow, IsInt, IsString, Length, Max, Min } from 'class-validator';

/**
 * Idempotency-Key on POSTs that create (draft-ietf-httpapi-idempotency-key-header; ADR 0045): the
 * gateway asks issuance, which stores the keys, before it runs the request and after it answered.
 * A key is scoped to the actor and the route (method and path).
 */
export class IdempotencyKeyRef {
  @IsString()
  @Length(1, 128)
  actor_id!: string;

  /** `POST /api/v1/certificates/mc-1/revoke`: the method and the path, without the query. */
  @IsString()
  @Length(1, 1024)
  route!: string;

  @IsString()
  @Length(1, 255)
  key!: string;
}

export class BeginIdempotentRequest extends IdempotencyKeyRef {
  /** SHA-256 (hex) of the request's query and body: the same key with another payload is refused. */
  @IsString()
  @Length(64, 64)
  fingerprint!: string;

  /** How long the attempt holds the key before another may take it over (its gateway gave up). */
  @IsInt()
  @Min(1000)
  @Max(600_000)
  lease_ms!: number;
}

/** `started`: run the request; `replay`: answer what the first attempt answered. */
export type IdempotentBegin = { outcome: 'started' } | { outcome: 'replay'; status: number; body: unknown };

export class FinishIdempotentRequest extends IdempotencyKeyRef {
  @IsInt()
  @Min(200)
  @Max(299)
  status!: number;

  /** The answer's JSON body (absent for an empty one). */
  @Allow()
  body?: unknown;
}

export interface IdempotencyKeyDone {
  done: boolean;
}
