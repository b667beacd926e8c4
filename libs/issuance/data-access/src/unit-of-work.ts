import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { outboxToken, ServiceOutbox } from '@certlane/platform';
import { DataSource, EntityManager } from 'typeorm';

/**
 * The one way the issuance service writes (ADR 0050): `run` does a unit of work in one
 * transaction of schema `issuance` and, once it has committed, wakes the outbox relay when the
 * work wrote events or audit records, so they are published now rather than at the next poll.
 */
@Injectable()
export class UnitOfWork {
  constructor(
    @InjectDataSource('issuance') private readonly dataSource: DataSource,
    @Inject(outboxToken('issuance')) private readonly outbox: ServiceOutbox,
  ) {}

  async run<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    let transaction: EntityManager | undefined;
    const result = await this.dataSource.transaction((manager) => {
      transaction = manager;
      return work(manager);
    });
    if (transaction && this.outbox.wroteThrough(transaction)) this.outbox.committed();
    return result;
  }
}
