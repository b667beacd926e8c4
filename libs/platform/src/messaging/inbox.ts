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

/**
 * consumeOnce for a batch of events in one transaction: one statement records every id in the
 * inbox, and `work` gets the events not recorded before (each once, in the given order); nothing
 * runs when every event was seen. Returns how many were new.
 */
export async function consumeManyOnce<E extends EventEnvelope<unknown>>(
  dataSource: DataSource,
  schema: string,
  consumer: string,
  events: readonly E[],
  work: (manager: EntityManager, fresh: E[]) => Promise<void>,
): Promise<number> {
  if (events.length === 0) return 0;
  return dataSource.transaction(async (manager) => {
    const inserted: { event_id: string }[] = await manager.query(
      `INSERT INTO "${schema}".inbox (consumer, event_id) SELECT $1, unnest($2::uuid[])
       ON CONFLICT DO NOTHING RETURNING event_id::text`,
      [consumer, events.map((event) => event.id)],
    );
    const isNew = new Set(inserted.map((row) => row.event_id));
    const fresh = events.filter((event) => isNew.delete(event.id));
    if (fresh.length === 0) return 0;
    await work(manager, fresh);
    return fresh.length;
  });
}
