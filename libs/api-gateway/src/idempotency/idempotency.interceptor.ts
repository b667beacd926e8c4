import {
  CallHandler,
  ExecutionContext,
  Inject,
  Injectable,
  NestInterceptor,
  SetMetadata,
} from '@nestjs/common';
import { HTTP_CODE_METADATA } from '@nestjs/common/constants';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import { from, lastValueFrom, Observable, of } from 'rxjs';
import { IdempotencyKeyRef } from '@certlane/contracts';
import {
  CERTLANE_CONFIG,
  CertlaneConfig,
  CertlaneLogger,
  LOGGER,
  MESSAGE_BUS,
  MessageBus,
} from '@certlane/platform';
import { actorOf, busContext } from '../auth/actor';
import { parseIdempotencyKey, requestFingerprint } from './idempotency-key';

const IDEMPOTENT = Symbol('certlane.idempotent');

/**
 * Marks a POST route that honours the Idempotency-Key header (ADR 0045). `waitMs`: how long the
 * gateway waits for the route's answer when that is not SERVICE_BUS_REQUEST_TIMEOUT (bulk calls).
 */
export const Idempotent = (options: { waitMs?: number } = {}) => SetMetadata(IDEMPOTENT, options);

const KEY = Symbol('certlane.idempotency-key');

/** The largest answer kept for replay (well under NATS's 1 MiB message limit). */
const MAX_STORED_BODY_CHARS = 256 * 1024;

/** The key of the request's Idempotency-Key header on an @Idempotent route, once the interceptor read it. */
export function idempotencyKeyOf(request: Request): string | undefined {
  return (request as unknown as Record<symbol, string | undefined>)[KEY];
}

/**
 * Idempotency-Key on the POSTs that create (draft-ietf-httpapi-idempotency-key-header, ADR 0045).
 * Before the route runs, issuance (which stores the keys, so every gateway replica agrees) says
 * whether this is the first attempt, a retry of an answered one (its stored answer is replayed,
 * with the route's status, without running it again), a retry while the first still runs (409
 * idempotency_key_in_use), or the key with another payload (422 idempotency_key_reused). A success
 * is stored for 24 h; a failure lets go of the key, so a retry runs again. An attempt whose gateway
 * never came back (it died, the bus or the database went away) holds the key for its lease, then
 * the next retry runs again.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  private readonly busTimeoutMs: number;

  constructor(
    private readonly reflector: Reflector,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(CERTLANE_CONFIG) config: CertlaneConfig,
    @Inject(LOGGER) private readonly logger: CertlaneLogger,
  ) {
    this.busTimeoutMs = config.nats.requestTimeoutMs;
  }

  /** How long an attempt holds its key: twice what the gateway waits for the answer, 10 s..10 min. */
  private leaseMs(options: { waitMs?: number }): number {
    return Math.min(600_000, Math.max(10_000, 2 * (options.waitMs ?? this.busTimeoutMs)));
  }

  async intercept(context: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    const request = context.switchToHttp().getRequest<Request>();
    const header = request.headers['idempotency-key'];
    const options = this.reflector.get<{ waitMs?: number } | undefined>(IDEMPOTENT, context.getHandler());
    if (header === undefined || options === undefined) return next.handle();
    const key = parseIdempotencyKey(header);
    (request as unknown as Record<symbol, string>)[KEY] = key;
    const ref: IdempotencyKeyRef = {
      actor_id: actorOf(request)?.id ?? 'anonymous',
      route: `${request.method} ${request.path}`,
      key,
    };
    const busOptions = { context: busContext(request) };
    const begun = await this.bus.request(
      'issuance.v1.idempotency-begin',
      {
        ...ref,
        fingerprint: requestFingerprint(request.query, request.body),
        lease_ms: this.leaseMs(options),
      },
      busOptions,
    );
    const response = context.switchToHttp().getResponse<Response>();
    if (begun.outcome === 'replay') {
      response.setHeader('idempotent-replayed', 'true');
      return of(begun.body);
    }
    const status = this.reflector.get<number | undefined>(HTTP_CODE_METADATA, context.getHandler()) ?? 201;
    return from(
      (async () => {
        let body: unknown;
        try {
          body = await lastValueFrom(next.handle(), { defaultValue: undefined });
        } catch (error) {
          await this.bus
            .request('issuance.v1.idempotency-abandon', ref, busOptions)
            .catch((lost: unknown) =>
              this.logger.warn(
                { err: lost, route: ref.route },
                'idempotency key not released; it frees itself after its lease',
              ),
            );
          throw error;
        }
        // An answer too large to keep (a big bulk result) is not stored: the key is let go.
        const storable = JSON.stringify(body ?? null).length <= MAX_STORED_BODY_CHARS;
        await (
          storable
            ? this.bus.request('issuance.v1.idempotency-finish', { ...ref, status, body }, busOptions)
            : this.bus.request('issuance.v1.idempotency-abandon', ref, busOptions)
        ).catch((lost: unknown) =>
          this.logger.warn(
            { err: lost, route: ref.route },
            'idempotency answer not stored; a retry runs again after the lease',
          ),
        );
        return body;
      })(),
    );
  }
}
