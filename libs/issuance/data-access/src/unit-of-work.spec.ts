import { OutboxRelay, ServiceOutbox } from '@certlane/platform';
import { DataSource, EntityManager } from 'typeorm';
import { UnitOfWork } from './unit-of-work';

function setUp(failCommit = false) {
  const kick = jest.fn();
  const outbox = new ServiceOutbox('issuance', { kick } as unknown as OutboxRelay, 'issuance');
  const dataSource = {
    async transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
      const result = await work({ query: async () => [] } as unknown as EntityManager);
      if (failCommit) throw new Error('commit failed');
      return result;
    },
  } as unknown as DataSource;
  return { unitOfWork: new UnitOfWork(dataSource, outbox), outbox, kick };
}

describe(UnitOfWork.name, () => {
  it('wakes the outbox relay after a commit whose work wrote an event', async () => {
    const { unitOfWork, outbox, kick } = setUp();
    const result = await unitOfWork.run(async (manager) => {
      await outbox.add(manager, 'issuance.v1.renewal-policy.deleted', { id: 'rp-1' });
      return 'done';
    });
    expect(result).toBe('done');
    expect(kick).toHaveBeenCalledTimes(1);
  });

  it('wakes it after an audit record too, and not after work that wrote neither', async () => {
    const { unitOfWork, outbox, kick } = setUp();
    await unitOfWork.run((manager) =>
      outbox.audit(manager, {
        action: 'owner.deleted',
        event_category: 'config',
        actor_id: 'u',
        resource_type: 'owner',
        resource_id: 'o',
        outcome: 'success',
        details: {},
      }),
    );
    await unitOfWork.run(async (manager) => manager.query('SELECT 1'));
    await unitOfWork.run((manager) => outbox.addMany(manager, 'issuance.v1.job.created', []));
    expect(kick).toHaveBeenCalledTimes(1);
  });

  it('does not wake it when the transaction fails', async () => {
    const { unitOfWork, outbox, kick } = setUp(true);
    await expect(
      unitOfWork.run((manager) => outbox.add(manager, 'issuance.v1.renewal-policy.deleted', { id: 'rp-1' })),
    ).rejects.toThrow('commit failed');
    expect(kick).not.toHaveBeenCalled();
  });
});
