import { loadApiDescription, operationsById } from './api-description';
import { BulkInterrupted, idsFieldOf, mergeBulkReplies, sendInBatches } from './bulk-batches';

describe(idsFieldOf.name, () => {
  const document = loadApiDescription();
  const byId = operationsById(document);
  const fieldOf = (operationId: string) => idsFieldOf(document, byId.get(operationId)!);

  it('fills certificate_ids for the certificate bulk operations, 500 a call', () => {
    for (const id of ['bulkRenewCertificates', 'bulkRevokeCertificates', 'bulkReassignCertificates'])
      expect(fieldOf(id)).toEqual({ key: 'certificate_ids', batch: 500 });
  });

  it('fills ids for the discovered-certificate bulk operations, as many a call as their body takes', () => {
    for (const id of ['bulkClaimDiscoveredCertificates', 'bulkDismissDiscoveredCertificates'])
      expect(fieldOf(id)).toEqual({ key: 'ids', batch: 100 });
  });

  it('finds none in a body without an id list', () => {
    expect(fieldOf('acmeBulkRenewCertificatesEarly')).toBeUndefined();
  });
});

describe(mergeBulkReplies.name, () => {
  it('adds totals, joins lists, ors flags and keeps the last of anything else', () => {
    const first = { total_failed: 1, errors: [{ id: 'a' }], errors_truncated: false, note: 'x' };
    const second = { total_failed: 2, errors: [{ id: 'b' }], errors_truncated: true, note: 'y' };
    expect(mergeBulkReplies(mergeBulkReplies({}, first), second)).toEqual({
      total_failed: 3,
      errors: [{ id: 'a' }, { id: 'b' }],
      errors_truncated: true,
      note: 'y',
    });
  });
});

describe(sendInBatches.name, () => {
  const ids = ['a', 'b', 'c', 'd', 'e'];
  const field = { key: 'certificate_ids', batch: 2 };

  it('sends every batch and adds the answers up', async () => {
    const sent: string[][] = [];
    const progress: number[] = [];
    const merged = await sendInBatches(
      ids,
      field,
      async (batch) => {
        sent.push(batch);
        return { total_revoked: batch.length };
      },
      (count) => progress.push(count),
    );
    expect(sent).toEqual([['a', 'b'], ['c', 'd'], ['e']]);
    expect(progress).toEqual([2, 4, 5]);
    expect(merged).toEqual({ total_revoked: 5 });
  });

  it('after a later batch fails, keeps what the applied batches did and the ids not sent', async () => {
    const failure = new Error('503');
    let calls = 0;
    const sending = sendInBatches(
      ids,
      field,
      async (batch) => {
        if (++calls === 2) throw failure;
        return { total_revoked: batch.length };
      },
      () => undefined,
    );
    await expect(sending).rejects.toBeInstanceOf(BulkInterrupted);
    const error = (await sending.catch((caught: unknown) => caught)) as BulkInterrupted;
    expect(error).toMatchObject({
      partial: { total_revoked: 2 },
      sent: 2,
      notSent: ['c', 'd', 'e'],
      failure,
    });
  });

  it('lets a failure of the first batch through as it is: nothing was applied', async () => {
    const failure = new Error('400');
    await expect(
      sendInBatches(
        ids,
        field,
        async () => {
          throw failure;
        },
        () => undefined,
      ),
    ).rejects.toBe(failure);
  });
});
