import { UnitOfWork } from '@certlane/issuance-data-access';
import { OutboxRelay, ServiceOutbox } from '@certlane/platform';
import { DataSource } from 'typeorm';
import { ExpirySweep } from './expiry-sweep';
import { EXPIRY_BATCH, RENEWAL_WINDOW_BOUNDS } from './expiry.queries';

/** A DataSource whose batches answer from a script: `false` = lock taken, a number = rows changed. */
function scripted(batches: (number | false)[]) {
  const statements: string[] = [];
  let batch = -1;
  const manager = {
    async query(sql: string): Promise<unknown> {
      statements.push(sql);
      if (sql.includes('pg_try_advisory_xact_lock')) return [{ locked: batches[++batch] !== false }];
      if (sql === RENEWAL_WINDOW_BOUNDS) return [{ widest: new Date(), narrowest: new Date() }];
      if (sql === EXPIRY_BATCH) {
        const rows = Array.from({ length: batches[batch] as number }, (_, i) => ({
          id: `c${batch}-${i}`,
          from_status: 'Active',
          to_status: 'Expiring',
        }));
        return [rows, rows.length];
      }
      return []; // the outbox insert
    },
  };
  const dataSource = {
    // A fresh manager per transaction, as TypeORM gives.
    transaction: (work: (m: typeof manager) => unknown) => work({ ...manager }),
  } as unknown as DataSource;
  const committed = jest.fn();
  const outbox = new ServiceOutbox('issuance', { kick: committed } as unknown as OutboxRelay, 'issuance');
  return { sweep: new ExpirySweep(new UnitOfWork(dataSource, outbox), outbox), statements, committed };
}

describe(ExpirySweep.name, () => {
  it('runs batches until one is short, kicking the outbox relay after each that changed certificates', async () => {
    const { sweep, statements, committed } = scripted([3, 3, 1]);
    expect(await sweep.sweep(new Date(), 3)).toEqual({ ran: true, changed: 7 });
    expect(statements.filter((s) => s === EXPIRY_BATCH)).toHaveLength(3);
    expect(statements.filter((s) => s.includes('outbox'))).toHaveLength(3);
    expect(committed).toHaveBeenCalledTimes(3);
  });

  it('does nothing when another replica holds the sweep lock', async () => {
    const { sweep, statements, committed } = scripted([false]);
    expect(await sweep.sweep(new Date(), 3)).toEqual({ ran: false, changed: 0 });
    expect(statements.filter((s) => s === EXPIRY_BATCH)).toHaveLength(0);
    expect(committed).not.toHaveBeenCalled();
  });

  it('stops when the lock is lost between batches, keeping what it committed', async () => {
    const { sweep, committed } = scripted([3, false]);
    expect(await sweep.sweep(new Date(), 3)).toEqual({ ran: true, changed: 3 });
    expect(committed).toHaveBeenCalledTimes(1);
  });

  it('writes no event and kicks nothing when nothing is due', async () => {
    const { sweep, committed } = scripted([0]);
    expect(await sweep.sweep(new Date(), 3)).toEqual({ ran: true, changed: 0 });
    expect(committed).not.toHaveBeenCalled();
  });
});
