import { IssuerDto } from '@certlane/contracts';
import { SecretBox } from '@certlane/platform';
import { InProcessService, startInProcessService } from '@certlane/testing-in-process';
import { IssuanceModule } from '../issuance.module';

const admin = { actor_id: 'usr-issuer-admin' };
const token = 's.vault-token-in-process-0123456789';
const vaultConfig = { address: 'https://vault.example.com', mount: 'pki', role: 'web', token };

/** The issuer service through its bus subjects, in process (ADR 0048; spec 4.5; ADR 0046). */
describe('issuer service', () => {
  let service: InProcessService;

  beforeAll(async () => {
    service = await startInProcessService({ services: ['issuance'], modules: [IssuanceModule.forRoot()] });
  }, 30_000);

  afterAll(async () => {
    await service?.close();
  });

  const create = (name: string, type: IssuerDto['type'], config: Record<string, unknown>) =>
    service.bus.request('issuance.v1.create-issuer', { name, type, config }, { context: admin });

  const storedConfig = async (id: string) => {
    const { rows } = await service.sql.query<{ config_sealed: string }>(
      'SELECT config_sealed FROM issuers WHERE id = $1',
      [id],
    );
    const box = new SecretBox(service.config.configEncryptionKey, 'issuance issuer config v1');
    return JSON.parse(box.open(rows[0].config_sealed, id)) as Record<string, unknown>;
  };

  const audits = async (id: string) =>
    (
      await service.sql.query<{ data: Record<string, unknown> }>(
        `SELECT envelope->'data' AS data FROM outbox
          WHERE subject = 'issuance.v1.audit.recorded' AND envelope->'data'->>'resource_id' = $1 ORDER BY seq`,
        [id],
      )
    ).rows.map((row) => row.data);

  it('gives a local_ca issuer a CA tree of its own: a root and an issuing intermediate under it', async () => {
    const issuer = await create('Team CA', 'local_ca', {});
    expect(issuer).toMatchObject({ id: 'iss-team-ca', type: 'local_ca', capabilities: { issue: true } });
    const cas = await service.bus.request('issuance.v1.list-cas', { issuer_id: issuer.id });
    expect(cas.total).toBe(2);
    const root = cas.data.find((ca) => ca.parent_id === null);
    const issuing = cas.data.find((ca) => ca.id === issuer.issuing_ca_id);
    expect(root).toMatchObject({ issuer_id: issuer.id, status: 'active', issuing: false });
    expect(issuing).toMatchObject({ issuer_id: issuer.id, parent_id: root?.id, issuing: true });
    expect(issuing?.subject).toContain('Team CA Issuing CA 1');
    expect(await service.bus.request('issuance.v1.test-issuer', { id: issuer.id })).toMatchObject({
      status: 'ok',
    });
  });

  it('refuses to delete an issuer holding CA certificates (issuer_in_use), naming what it holds', async () => {
    const issuer = await create('Busy CA', 'local_ca', {});
    await expect(
      service.bus.request('issuance.v1.delete-issuer', { id: issuer.id }, { context: admin }),
    ).rejects.toMatchObject({ code: 'issuer_in_use', details: { cas: 2, certificates: 0 } });
    expect(await service.bus.request('issuance.v1.get-issuer', { id: issuer.id })).toEqual(issuer);
  });

  it('refuses an update whose merged config is invalid and keeps the stored, sealed config', async () => {
    const issuer = await create('Vault Refused', 'vault_pki', vaultConfig);
    await expect(
      service.bus.request('issuance.v1.update-issuer', {
        id: issuer.id,
        config: { ...vaultConfig, token: '********', address: 'http://vault.example.com' },
      }),
    ).rejects.toMatchObject({ code: 'issuer_config_invalid' });
    expect(await storedConfig(issuer.id)).toEqual(vaultConfig);
    expect(await service.bus.request('issuance.v1.get-issuer', { id: issuer.id })).toEqual(issuer);
  });

  it('accepts an update naming the type it already has, and audits only the fields that changed', async () => {
    const issuer = await create('Vault Same', 'vault_pki', vaultConfig);
    const updated = await service.bus.request(
      'issuance.v1.update-issuer',
      {
        id: issuer.id,
        type: 'vault_pki',
        name: 'Vault Same',
        config: { ...vaultConfig, token: '********', role: 'api' },
      },
      { context: admin },
    );
    expect(updated).toMatchObject({ name: 'Vault Same', config: { role: 'api', token: '********' } });
    expect(await storedConfig(issuer.id)).toEqual({ ...vaultConfig, role: 'api' });
    const records = await audits(issuer.id);
    expect(records.map((record) => record.action)).toEqual(['issuer.created', 'issuer.updated']);
    expect(records[1]).toMatchObject({ actor_id: admin.actor_id, details: { changed_fields: ['config'] } });
    expect(JSON.stringify(records)).not.toContain(token);
  });

  it('tests a connector that is not implemented yet as not_implemented and audits the test', async () => {
    const issuer = await create('DigiCert Tested', 'digicert', {
      api_key: 'dc-0123456789',
      product_name_id: 'ssl_plus',
    });
    expect(
      await service.bus.request('issuance.v1.test-issuer', { id: issuer.id }, { context: admin }),
    ).toMatchObject({ status: 'not_implemented' });
    expect((await audits(issuer.id)).at(-1)).toMatchObject({
      action: 'issuer.tested',
      details: { status: 'not_implemented' },
    });
  });

  it('deletes an unused issuer, after which every subject answers issuer_not_found', async () => {
    const issuer = await create('Vault Gone', 'vault_pki', vaultConfig);
    expect(await service.bus.request('issuance.v1.delete-issuer', { id: issuer.id })).toEqual({
      id: issuer.id,
    });
    for (const request of [
      () => service.bus.request('issuance.v1.get-issuer', { id: issuer.id }),
      () => service.bus.request('issuance.v1.update-issuer', { id: issuer.id, name: 'Back' }),
      () => service.bus.request('issuance.v1.delete-issuer', { id: issuer.id }),
      () => service.bus.request('issuance.v1.test-issuer', { id: issuer.id }),
    ]) {
      await expect(request()).rejects.toMatchObject({ code: 'issuer_not_found' });
    }
  });
});
