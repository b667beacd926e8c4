import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import {
  BeginIdempotentRequest,
  CertlaneError,
  ErrorCode,
  FinishIdempotentRequest,
  IdempotencyKeyDone,
  IdempotencyKeyRef,
  IdempotentBegin,
} from '@certlane/contracts';
import { idempotencyDecision } from '@certlane/issuance-domain';
import { CertlaneLogger, LOGGER, MESSAGE_BUS, MessageBus, PeriodicTask } from '@certlane/platform';
import { IdempotencyKeyRepository } from './idempotency-key.repository';
import { UnitOfWork } from '@certlane/issuance-data-access';

/** How long a key and its answer are kept (the draft suggests at least 24 h). */
export const IDEMPOTENCY_KEY_TTL_MS = 24 * 3_600_000;
const PRUNE_INTERVAL_MS = 10 * 60_000;
const PRUNE_BATCH = 1000;

/**
 * Idempotency-Key storage for the gateway (ADR 0045): one row per actor, route and key, locked
 * while an attempt begins, so replicas of the gateway and of issuance agree. Expired rows are
 * pruned every 10 minutes.
 */
@Injectable()
export class IdempotencyKeyService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly pruning = new PeriodicTask(() => this.prune(), PRUNE_INTERVAL_MS);

  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly keys: IdempotencyKeyRepository,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(LOGGER) private readonly logger: CertlaneLogger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.pruning.start();
    await Promise.all([
      this.bus.handle('issuance.v1.idempotency-begin', (request) => this.begin(request)),
      this.bus.handle('issuance.v1.idempotency-finish', (request) => this.finish(request)),
      this.bus.handle('issuance.v1.idempotency-abandon', (request) => this.abandon(request)),
    ]);
  }

  onApplicationShutdown(): Promise<void> {
    return this.pruning.stop();
  }

  begin(request: BeginIdempotentRequest): Promise<IdempotentBegin> {
    return this.unitOfWork.run(async (manager) => {
      if (
        await this.keys.insertHeld(
          manager,
          request,
          request.fingerprint,
          request.lease_ms,
          IDEMPOTENCY_KEY_TTL_MS,
        )
      )
        return { outcome: 'started' };
      const stored = await this.keys.lock(manager, request);
      // Deleted between the two statements (it expired): this attempt is the first.
      if (!stored)
        return this.keys
          .insertHeld(manager, request, request.fingerprint, request.lease_ms, IDEMPOTENCY_KEY_TTL_MS)
          .then((): IdempotentBegin => ({ outcome: 'started' }));
      switch (idempotencyDecision(stored, request.fingerprint)) {
        case 'reused':
          throw new CertlaneError(
            ErrorCode.IdempotencyKeyReused,
            'this Idempotency-Key was used with another request payload',
          );
        case 'in-use':
          throw new CertlaneError(
            ErrorCode.IdempotencyKeyInUse,
            'a request with this Idempotency-Key is still being processed; retry later',
          );
        case 'replay':
          return { outcome: 'replay', status: stored.status as number, body: stored.body ?? undefined };
        case 'take-over':
          await this.keys.hold(manager, request, request.lease_ms);
          return { outcome: 'started' };
      }
    });
  }

  async finish(request: FinishIdempotentRequest): Promise<IdempotencyKeyDone> {
    return { done: await this.keys.finish(request, request.status, request.body) };
  }

  async abandon(request: IdempotencyKeyRef): Promise<IdempotencyKeyDone> {
    return { done: await this.keys.abandon(request) };
  }

  private async prune(): Promise<void> {
    try {
      while ((await this.keys.pruneExpired(PRUNE_BATCH)) === PRUNE_BATCH);
    } catch (error) {
      this.logger.warn({ err: error }, 'idempotency key pruning failed; will retry');
    }
  }
}
