import { EventEnvelope } from '@certlane/contracts';
import { DataSource, EntityManager } from 'typeorm';

/**
 * Runs `work` for an event at most once per consumer: the event id is recorded in the
 * service's inbox table in the same transaction as the work, so a redelivered event (after a
 * crash before the ack, or a re-published outbox row) is skipped. Returns false when skipped.
 */
export async function consumeOnce(
  dataSource: DataSource,
  schema: string,
  consumer: string,
  event: EventEnvelope<unknown>,
  work: (manager: EntityManager) => Promise<void>,
): Promise<boolean> {
  return dataSource.transaction(async (manager) => {
    const inserted: unknown[] = await manager.query(
      `INSERT INTO "${schema}".inbox (consumer, event_id) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING event_id`,
      [consumer, event.id],
    );
    if (inserted.length === 0) return false;
    await work(manager);
    return true;
  });
}
