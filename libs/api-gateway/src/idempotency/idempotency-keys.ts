import { Inject, Injectable } from '@nestjs/common';
import { IdempotencyKeyRef, RequestContext } from '@certlane/contracts';
import {
  CERTLANE_CONFIG,
  CertlaneConfig,
  CertlaneLogger,
  LOGGER,
  MESSAGE_BUS,
  MessageBus,
} from '@certlane/platform';
import { parseIdempotencyKey, requestFingerprint } from './idempotency-key';

/** The largest answer kept for replay (well under NATS's 1 MiB message limit). */
const MAX_STORED_BODY_CHARS = 256 * 1024;

/** A request with an Idempotency-Key header, to a route that honours it. */
export interface IdempotentRequest {
  header: string | string[];
  actorId: string | undefined;
  /** `METHOD /path` as requested (keys are kept apart per route and resource). */
  route: string;
  /** The parsed query string and JSON body, as they came (the fingerprint of the request). */
  query: unknown;
  body: unknown;
  context: RequestContext;
  /** How long the gateway waits for the route's answer, when not SERVICE_BUS_REQUEST_TIMEOUT. */
  waitMs?: number;
}

/** A first attempt, which must say how it ended; or a retry of an answered one, with its answer. */
export type IdempotentAttempt =
  | { replayed: true; body: unknown }
  | {
      replayed: false;
      key: string;
      /** The attempt succeeded: its answer is kept for replay (24 h), unless too large to keep. */
      finished(status: number, body: unknown): Promise<void>;
      /** The attempt failed: the key is let go, so a retry runs again. */
      abandoned(): Promise<void>;
    };

/**
 * Idempotency-Key on the POSTs that create or act (draft-ietf-httpapi-idempotency-key-header, ADR
 * 0045). Before the route runs, issuance (which stores the keys, so every gateway replica agrees)
 * says whether this is the first attempt, a retry of an answered one (its stored answer is
 * replayed, with the route's status, without running it again), a retry while the first still
 * runs (409 idempotency_key_in_use), or the key with another payload (422 idempotency_key_reused).
 * A malformed header is 400 idempotency_key_invalid. A success is stored for 24 h; a failure lets
 * go of the key, so a retry runs again. An attempt whose gateway never came back (it died, the
 * bus or the database went away) holds the key for its lease, then the next retry runs again.
 */
@Injectable()
export class IdempotencyKeys {
  private readonly busTimeoutMs: number;

  constructor(
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(CERTLANE_CONFIG) config: CertlaneConfig,
    @Inject(LOGGER) private readonly logger: CertlaneLogger,
  ) {
    this.busTimeoutMs = config.nats.requestTimeoutMs;
  }

  async begin(request: IdempotentRequest): Promise<IdempotentAttempt> {
    const key = parseIdempotencyKey(request.header);
    const ref: IdempotencyKeyRef = { actor_id: request.actorId ?? 'anonymous', route: request.route, key };
    const options = { context: request.context };
    const begun = await this.bus.request(
      'issuance.v1.idempotency-begin',
      {
        ...ref,
        fingerprint: requestFingerprint(request.query, request.body),
        lease_ms: this.leaseMs(request.waitMs),
      },
      options,
    );
    if (begun.outcome === 'replay') return { replayed: true, body: begun.body };
    const abandon = () => this.bus.request('issuance.v1.idempotency-abandon', ref, options);
    return {
      replayed: false,
      key,
      finished: (status, body) => {
        // An answer too large to keep (a big bulk result) is not stored: the key is let go.
        const storable = JSON.stringify(body ?? null).length <= MAX_STORED_BODY_CHARS;
        return (
          storable
            ? this.bus.request('issuance.v1.idempotency-finish', { ...ref, status, body }, options)
            : abandon()
        ).then(
          () => undefined,
          (lost: unknown) =>
            this.logger.warn(
              { err: lost, route: ref.route },
              'idempotency answer not stored; a retry runs again after the lease',
            ),
        );
      },
      abandoned: () =>
        abandon().then(
          () => undefined,
          (lost: unknown) =>
            this.logger.warn(
              { err: lost, route: ref.route },
              'idempotency key not released; it frees itself after its lease',
            ),
        ),
    };
  }

  /** How long an attempt holds its key: twice what the gateway waits for the answer, 10 s..10 min. */
  private leaseMs(waitMs: number | undefined): number {
    return Math.min(600_000, Math.max(10_000, 2 * (waitMs ?? this.busTimeoutMs)));
  }
}
