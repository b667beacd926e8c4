import { ErrorCode } from '@certlane/contracts';
import { UnitOfWork } from '@certlane/issuance-data-access';
import { IssuerConnector, RevokeRequest } from '@certlane/pki';
import { ServiceOutbox } from '@certlane/platform';
import { EntityManager } from 'typeorm';
import { IssuerDependencies } from '../issuers/issuer-dependencies';
import { IssuerRepository, IssuerRow } from '../issuers/issuer.repository';
import { CaRepository } from '../local-ca/ca.repository';
import { LocalCaService } from '../local-ca/local-ca.service';
import { IssuerRevocation, SerialToRevoke } from './issuer-revocation';

const manager = {} as EntityManager;

/** Issuer `iss-local` (local CA: issued serials start with `ab`) and `iss-acme` (no connector). */
function setUp() {
  const revoked: { issuer: string; serials: string[] }[] = [];
  const connectorCalls: string[] = [];
  const events: unknown[] = [];
  const issuers = {
    find: async (id: string) =>
      ({ 'iss-local': { id, kind: 'local_ca' }, 'iss-acme': { id, kind: 'acme' } })[id] as
        IssuerRow | undefined,
  } as unknown as IssuerRepository;
  const cas = {
    revokeMany: async (_: EntityManager, issuer: string, serials: string[]) => {
      revoked.push({ issuer, serials });
      return serials
        .filter((serial) => !serial.endsWith('old'))
        .map((serial_hex) => ({ serial_hex, revoked_at: new Date('2026-11-24T00:00:00Z') }));
    },
    revocations: async (_: EntityManager, __: string, serials: string[]) =>
      serials.map((serial_hex) => ({
        serial_hex,
        reason: 'superseded',
        revoked_at: new Date('2026-01-01T00:00:00Z'),
      })),
  } as unknown as CaRepository;
  const localCa = {
    revocationConnector: (
      _: EntityManager,
      issuer: IssuerRow,
      record: IssuerDependencies['recordRevocations'],
    ): IssuerConnector | null =>
      issuer.kind !== 'local_ca'
        ? null
        : ({
            revoke: () => Promise.reject(new Error('the batch is used')),
            revokeMany: (requests: RevokeRequest[]) => {
              connectorCalls.push(`revokeMany ${requests.map((r) => r.serialNumber).join(',')}`);
              return record(requests);
            },
            unknownSerials: async (serials: string[]) => serials.filter((serial) => !serial.startsWith('ab')),
          } as unknown as IssuerConnector),
  } as unknown as LocalCaService;
  const outbox = {
    addMany: async (_: EntityManager, subject: string, data: unknown[]) => {
      events.push(...data.map((item) => ({ subject, item })));
      return [];
    },
  } as unknown as ServiceOutbox;
  const revocation = new IssuerRevocation({} as UnitOfWork, issuers, cas, localCa, outbox);
  return { revocation, revoked, connectorCalls, events };
}

describe(IssuerRevocation.name, () => {
  it("revokes each issuer's serials in one batch through its connector, and publishes the new ones", async () => {
    const { revocation, revoked, connectorCalls, events } = setUp();
    const results = await revocation.revokeSerials(
      manager,
      [
        { issuer_id: 'iss-local', serial_hex: 'ab01' },
        { issuer_id: 'iss-local', serial_hex: 'ab02old' },
      ],
      'keyCompromise',
    );
    expect(connectorCalls).toEqual(['revokeMany ab01,ab02old']);
    expect(revoked).toEqual([{ issuer: 'iss-local', serials: ['ab01', 'ab02old'] }]);
    expect(results.map((r) => r.ok && r.caNotified)).toEqual([true, true]);
    expect(results.map((r) => (r.ok ? [r.item.serial_hex, r.created, r.event.reason] : r))).toEqual([
      ['ab01', true, 'keyCompromise'],
      ['ab02old', false, 'superseded'],
    ]);
    expect(events).toEqual([
      {
        subject: 'issuance.v1.certificate.revoked',
        item: {
          issuer_id: 'iss-local',
          serial_hex: 'ab01',
          reason: 'keyCompromise',
          revoked_at: '2026-11-24T00:00:00.000Z',
        },
      },
    ]);
  });

  it('records locally the serials of a kind without a connector, saying its CA was not told', async () => {
    const { revocation, revoked, connectorCalls } = setUp();
    const [result] = await revocation.revokeSerials(
      manager,
      [{ issuer_id: 'iss-acme', serial_hex: 'ff01' }],
      'unspecified',
    );
    expect(connectorCalls).toEqual([]);
    expect(revoked).toEqual([{ issuer: 'iss-acme', serials: ['ff01'] }]);
    expect(result).toMatchObject({ ok: true, created: true, caNotified: false });
  });

  it('refuses an unknown issuer and a serial the local CA never issued, before revoking anything', async () => {
    const { revocation } = setUp();
    const results = await revocation.revokeSerials(
      manager,
      [
        { issuer_id: 'iss-gone', serial_hex: 'ab01' },
        { issuer_id: 'iss-local', serial_hex: 'ff02' },
        { issuer_id: 'iss-local', serial_hex: 'ab03' },
      ],
      'unspecified',
    );
    expect(results.map((r) => (r.ok ? r.item.serial_hex : [r.error.code, r.error.message]))).toEqual([
      [ErrorCode.IssuerNotFound, 'issuer "iss-gone" not found'],
      [ErrorCode.CertificateNotFound, 'issuer iss-local issued no certificate with serial ff02'],
      'ab03',
    ]);
  });

  it('keeps every serial of a group unrevoked when one of them is refused (bulk: a certificate)', async () => {
    const { revocation, revoked } = setUp();
    const items: SerialToRevoke[] = [
      { issuer_id: 'iss-acme', serial_hex: 'ff01', certificate_id: 'cert-a' },
      { issuer_id: 'iss-local', serial_hex: 'ff02', certificate_id: 'cert-a' },
      { issuer_id: 'iss-local', serial_hex: 'ab03', certificate_id: 'cert-b' },
    ];
    const results = await revocation.revokeSerials(manager, items, 'unspecified', undefined, {
      group: (item) => item.certificate_id as string,
    });
    expect(revoked).toEqual([{ issuer: 'iss-local', serials: ['ab03'] }]);
    expect(results.map((r) => [r.item.serial_hex, r.ok])).toEqual([
      ['ff02', false],
      ['ab03', true],
    ]);
  });
});
