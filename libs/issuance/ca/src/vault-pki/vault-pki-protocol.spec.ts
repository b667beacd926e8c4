import { IssuerError } from '@certlane/pki';
import {
  mountUrl,
  roleOf,
  signBody,
  signedPems,
  vaultFailure,
  vaultHeaders,
  vaultSerial,
} from './vault-pki-protocol';

const config = { address: 'https://vault.example.test:8200', mount: 'pki/int', role: 'web', token: 's.t' };

describe('Vault PKI requests', () => {
  it('names the mount path, the token and the namespace', () => {
    expect(mountUrl(config, 'sign/web')).toBe('https://vault.example.test:8200/v1/pki/int/sign/web');
    expect(vaultHeaders(config)).toEqual({ 'x-vault-token': 's.t', 'x-vault-request': 'true' });
    expect(vaultHeaders({ ...config, namespace: 'team-a' })).toMatchObject({ 'x-vault-namespace': 'team-a' });
  });

  it('signs with the profile CA profile as the role when given, else the issuer role', () => {
    const request = { csrPem: '', idempotencyKey: '', profile: {} };
    expect(roleOf(config, request)).toBe('web');
    expect(roleOf(config, { ...request, profile: { caProfile: 'internal' } })).toBe('internal');
  });

  it('asks for the validity in hours, or the exact end, and for the names to certify', () => {
    expect(signBody({ csrPem: 'CSR', idempotencyKey: '', profile: { validityDays: 7 } })).toEqual({
      csr: 'CSR',
      format: 'pem',
      ttl: '168h',
    });
    expect(
      signBody({
        csrPem: 'CSR',
        idempotencyKey: '',
        profile: {
          validityDays: 7,
          notAfter: new Date('2027-01-01T00:00:00.000Z'),
          commonName: 'a.example',
          subjectAltNames: [
            { type: 'dns', value: 'a.example' },
            { type: 'dns', value: 'b.example' },
            { type: 'ip', value: '10.0.0.1' },
            { type: 'uri', value: 'spiffe://x/y' },
            { type: 'email', value: 'ops@example.com' },
          ],
        },
      }),
    ).toEqual({
      csr: 'CSR',
      format: 'pem',
      not_after: '2027-01-01T00:00:00Z',
      common_name: 'a.example',
      alt_names: 'a.example,b.example,ops@example.com',
      ip_sans: '10.0.0.1',
      uri_sans: 'spiffe://x/y',
    });
  });

  it('spells serials as Vault does', () => {
    expect(vaultSerial('0a1b2c')).toBe('0a:1b:2c');
    expect(vaultSerial('abc')).toBe('0a:bc');
  });

  it('reads the leaf and the chain, or the issuing CA when there is no chain', () => {
    const json = (data: Record<string, unknown>) => ({ status: 200, json: { data } });
    expect(signedPems(json({ certificate: 'L', ca_chain: ['I', 'R'], issuing_ca: 'I' }))).toBe('L\nI\nR');
    expect(signedPems(json({ certificate: 'L', issuing_ca: 'I' }))).toBe('L\nI');
  });
});

describe(vaultFailure.name, () => {
  const answer = (status: number, errors?: unknown) => ({
    status,
    json: errors === undefined ? null : { errors },
  });

  it('is null for 2xx and classifies every other status', () => {
    expect(vaultFailure(answer(200), 'x')).toBeNull();
    expect(vaultFailure(answer(204), 'x')).toBeNull();
    expect(vaultFailure(answer(503, ['Vault is sealed']), 'x')).toEqual(
      new IssuerError('unavailable', 'x: Vault answered 503: Vault is sealed'),
    );
    expect(vaultFailure(answer(429), 'x')?.kind).toBe('unavailable');
    for (const status of [401, 403, 404, 405])
      expect(vaultFailure(answer(status), 'x')?.kind).toBe('misconfigured');
    expect(vaultFailure(answer(400, ['common name a not allowed', 'and more']), 'x')).toEqual(
      new IssuerError('rejected', 'x: Vault answered 400: common name a not allowed; and more'),
    );
  });

  it('shortens a long error list and strips control characters', () => {
    const failure = vaultFailure(answer(400, [`a\n${'b'.repeat(400)}`]), 'x') as IssuerError;
    expect(failure.message).not.toContain('\n');
    expect(failure.message.length).toBeLessThan(340);
  });
});
