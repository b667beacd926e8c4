import { readFileSync } from 'node:fs';
import { createTlsFixture, TlsFixture } from '@certlane/testing';
import { InProcessService, startInProcessService } from '@certlane/testing-in-process';
import { HealthMonitorModule } from '../health-monitor.module';

/**
 * The discovery push's walks (ADR 0063): what an agent found before and a complete walk no longer
 * finds is gone; a partial walk proves nothing; a later sighting makes it present again.
 */
describe('agent discovery walks mark what is no longer found', () => {
  let service: InProcessService;
  let kept: TlsFixture;
  let removed: TlsFixture;
  const context = { context: { actor_id: 'agent:walker-1', request_id: 'req-walk' } };
  const pem = (fixture: TlsFixture) => readFileSync(fixture.certPath, 'utf8');
  const push = (walk: { walk_id?: string; walk_complete?: boolean }, files: [string, TlsFixture][]) =>
    service.bus.request(
      'health-monitor.v1.push-agent-discovery',
      {
        agent_id: 'walker-1',
        findings: files.map(([path, fixture]) => ({ path, format: 'pem', certificate_pem: pem(fixture) })),
        ...walk,
      } as never,
      context,
    );
  const goneAt = async (fixture: TlsFixture) =>
    (await service.bus.request('health-monitor.v1.get-discovered-certificate', { id: fixture.fingerprint }))
      .gone_at;

  beforeAll(async () => {
    [kept, removed] = await Promise.all([createTlsFixture('kept.test'), createTlsFixture('removed.test')]);
    service = await startInProcessService({
      services: ['health-monitor'],
      modules: [HealthMonitorModule.forRoot({ timer: false })],
      label: 'agentwalk',
    });
  }, 30_000);

  afterAll(() => service?.close());

  it("marks gone only after a complete walk, and only this agent's places", async () => {
    expect(
      await push({ walk_id: 'walk-0001', walk_complete: true }, [
        ['/etc/kept.pem', kept],
        ['/etc/removed.pem', removed],
      ]),
    ).toMatchObject({ new_certificates: 2, gone_certificates: 0 });
    // A partial walk (first push of a walk, or a walk that could not read a root) marks nothing.
    expect(await push({ walk_id: 'walk-0002' }, [['/etc/kept.pem', kept]])).toMatchObject({
      gone_certificates: 0,
    });
    expect(await goneAt(removed)).toBeNull();
    // The last push of the walk: complete, nothing more found.
    expect(await push({ walk_id: 'walk-0002', walk_complete: true }, [])).toMatchObject({
      gone_certificates: 1,
    });
    expect(await goneAt(removed)).not.toBeNull();
    expect(await goneAt(kept)).toBeNull();
    const gone = await service.bus.request('health-monitor.v1.list-discovered-certificates', {
      presence: 'gone',
    });
    expect(gone.data.map((c) => c.id)).toEqual([removed.fingerprint]);
    // Found again (another path): present again.
    await push({ walk_id: 'walk-0003' }, [['/opt/removed.pem', removed]]);
    expect(await goneAt(removed)).toBeNull();
  });

  it('refuses walk_complete without the walk id', async () => {
    await expect(push({ walk_complete: true }, [])).rejects.toMatchObject({ code: 'validation_failed' });
  });
});
