import { PublicationStore } from '../publication/publication-store';
import { CrlFileWriter, shouldWriteCrl } from './crl-files';

/** A store whose writes finish when the test says so, in any order. */
class SlowStore implements PublicationStore {
  readonly objects = new Map<string, Buffer>();
  readonly pending: { key: string; body: Buffer; finish: () => void; fail: (e: Error) => void }[] = [];
  put(key: string, body: Buffer): Promise<void> {
    return new Promise((resolve, reject) => {
      this.pending.push({
        key,
        body,
        finish: () => {
          this.objects.set(key, body);
          resolve();
        },
        fail: reject,
      });
    });
  }
  async removeWrittenBefore(): Promise<number> {
    return 0;
  }
}

const tick = () => new Promise((resolve) => setImmediate(resolve));
const crl = (n: bigint, caId = 'ca-1') => ({
  issuer_id: 'iss-local',
  ca_id: caId,
  crl_number: n,
  der: Buffer.from(`crl ${n}`),
});

describe(CrlFileWriter.name, () => {
  it('writes only a higher number than the last written', () => {
    expect(shouldWriteCrl(undefined, 1n)).toBe(true);
    expect(shouldWriteCrl(4n, 5n)).toBe(true);
    expect(shouldWriteCrl(5n, 5n)).toBe(false);
    expect(shouldWriteCrl(6n, 5n)).toBe(false);
  });

  it('keeps CRL N+1 when the write of CRL N is asked for after it (review L5)', async () => {
    const store = new SlowStore();
    const writer = new CrlFileWriter(store);
    const newer = writer.write(crl(8n));
    const older = writer.write(crl(7n));
    await tick();
    // One write of a CA at a time: the older one waits for the newer.
    expect(store.pending).toHaveLength(1);
    store.pending[0].finish();
    expect(await newer).toBe(true);
    expect(await older).toBe(false);
    expect(store.objects.get('crl/iss-local/ca-1.crl')!.toString()).toBe('crl 8');
    expect(writer.writtenNumber('iss-local', 'ca-1')).toBe(8n);
  });

  it('lets the newer write land after a slower older one, never the reverse', async () => {
    const store = new SlowStore();
    const writer = new CrlFileWriter(store);
    const older = writer.write(crl(7n));
    const newer = writer.write(crl(8n));
    await tick();
    expect(store.pending).toHaveLength(1);
    store.pending[0].finish();
    await older;
    await tick();
    store.pending[1].finish();
    expect(await newer).toBe(true);
    expect(store.objects.get('crl/iss-local/ca-1.crl')!.toString()).toBe('crl 8');
  });

  it('writes the CAs of an issuer independently', async () => {
    const store = new SlowStore();
    const writer = new CrlFileWriter(store);
    const a = writer.write(crl(9n, 'ca-1'));
    const b = writer.write(crl(3n, 'ca-2'));
    await tick();
    expect(store.pending.map((p) => p.key)).toEqual(['crl/iss-local/ca-1.crl', 'crl/iss-local/ca-2.crl']);
    for (const p of store.pending) p.finish();
    expect(await Promise.all([a, b])).toEqual([true, true]);
  });

  it('does not record a failed write, so the same CRL is written again later', async () => {
    const store = new SlowStore();
    const writer = new CrlFileWriter(store);
    const failed = writer.write(crl(5n));
    await tick();
    store.pending[0].fail(new Error('disk full'));
    await expect(failed).rejects.toThrow('disk full');
    expect(writer.writtenNumber('iss-local', 'ca-1')).toBeUndefined();
    expect(writer.behind([crl(5n)])).toHaveLength(1);
    const again = writer.write(crl(5n));
    await tick();
    store.pending[1].finish();
    expect(await again).toBe(true);
    expect(writer.behind([crl(5n)])).toEqual([]);
  });

  it('names the stored CRLs newer than what it wrote (another replica built them)', async () => {
    const store = new SlowStore();
    const writer = new CrlFileWriter(store);
    const written = writer.write(crl(5n, 'ca-1'));
    await tick();
    store.pending[0].finish();
    await written;
    const stored = [crl(5n, 'ca-1'), crl(6n, 'ca-2')];
    expect(writer.behind(stored).map((s) => s.ca_id)).toEqual(['ca-2']);
    expect(writer.behind([crl(7n, 'ca-1')]).map((s) => s.crl_number)).toEqual([7n]);
  });

  it('writes nothing without a store', async () => {
    const writer = new CrlFileWriter(undefined);
    expect(writer.enabled).toBe(false);
    expect(await writer.write(crl(1n))).toBe(false);
  });
});
