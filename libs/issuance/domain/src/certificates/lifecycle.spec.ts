import { CERTIFICATE_SOURCES } from '@certlane/contracts';
import {
  initialJobStatus,
  keyGenerationRefusal,
  producesVersion,
  renewedByTheLoop,
  statusByDates,
  versionJobRefusal,
} from './lifecycle';

describe('initialJobStatus', () => {
  it.each([
    ['Issuance', 'agent', 'AwaitingCSR'],
    ['Renewal', 'agent', 'AwaitingCSR'],
    ['Issuance', 'server', 'Pending'],
    ['Renewal', 'server', 'Pending'],
    ['Deployment', 'agent', 'Pending'],
    ['Deployment', 'server', 'Pending'],
    ['Validation', 'agent', 'Pending'],
  ] as const)('starts a %s job in %s key generation as %s', (type, mode, expected) => {
    expect(initialJobStatus(type, mode)).toBe(expected);
  });
});

describe('producesVersion', () => {
  it('is true for issuance and renewal only', () => {
    expect(
      ['Issuance', 'Renewal', 'Deployment', 'Validation'].map((t) => producesVersion(t as never)),
    ).toEqual([true, true, false, false]);
  });
});

describe('statusByDates', () => {
  const now = new Date('2026-01-01T00:00:00Z');
  const days = (n: number) => new Date(now.getTime() + n * 86_400_000);

  it('is Pending without a version', () => {
    expect(statusByDates(null, now, 30)).toBe('Pending');
  });

  it('reads Active, Expiring and Expired from the dates and the renewal window', () => {
    expect(statusByDates(days(90), now, 30)).toBe('Active');
    expect(statusByDates(days(10), now, 30)).toBe('Expiring');
    expect(statusByDates(days(-1), now, 30)).toBe('Expired');
  });
});

describe('keyGenerationRefusal', () => {
  it.each([
    ['Issuance', 'agent', '', true],
    ['Renewal', 'agent', '', true],
    ['Issuance', 'agent', 'edge-1', false],
    ['Renewal', 'server', '', false],
    ['Deployment', 'agent', '', false],
    ['Validation', 'agent', '', false],
  ] as const)('refuses a %s job in %s key generation for agent %j: %s', (type, mode, agent, refused) => {
    expect(keyGenerationRefusal(type, mode, agent) !== null).toBe(refused);
  });
});

describe('versionJobRefusal', () => {
  const certificate = (issuer_id: string | null, agent_id: string, source = 'API') => ({
    id: 'mc-1',
    issuer_id,
    agent_id,
    source,
  });

  it.each([
    ['Renewal', 'server', null, 'edge-1', 'certificate_not_renewable'],
    ['Issuance', 'agent', '', 'edge-1', 'certificate_not_renewable'],
    ['Renewal', 'agent', null, '', 'certificate_not_renewable'],
    ['Renewal', 'agent', 'iss-local', '', 'keygen_agent_missing'],
    ['Renewal', 'agent', 'iss-local', 'edge-1', null],
    ['Renewal', 'server', 'iss-local', '', null],
    ['Deployment', 'agent', null, '', null],
  ] as const)(
    'refuses a %s job in %s key generation with issuer %j and agent %j: %s',
    (type, mode, issuer, agent, code) => {
      expect(versionJobRefusal(type, mode, certificate(issuer, agent))?.code ?? null).toBe(code);
    },
  );

  it('names the missing issuer and how to make the certificate renewable again', () => {
    expect(versionJobRefusal('Renewal', 'server', certificate(null, ''))).toEqual({
      code: 'certificate_not_renewable',
      field: 'issuer_id',
      message: expect.stringMatching(/"mc-1" has no issuer.*set its issuer_id/),
    });
  });

  it.each([
    ['Issuance', 'server', 'edge-1', 'not_implemented'],
    ['Renewal', 'agent', 'edge-1', 'not_implemented'],
    ['Renewal', 'agent', '', 'not_implemented'],
    ['Deployment', 'server', '', null],
  ] as const)(
    'refuses a %s job in %s key generation (agent %j) under an issuer whose kind has no connector: %s',
    (type, mode, agent, code) => {
      expect(versionJobRefusal(type, mode, certificate('iss-vault', agent), 'vault_pki')?.code ?? null).toBe(
        code,
      );
    },
  );

  it('names the issuer, its kind and how to renew a certificate of an issuer that cannot issue', () => {
    expect(versionJobRefusal('Renewal', 'server', certificate('iss-vault', ''), 'vault_pki')).toEqual({
      code: 'not_implemented',
      field: 'issuer_id',
      message: expect.stringMatching(/"mc-1" names issuer "iss-vault" of type vault_pki.*import.*local_ca/),
    });
    // No issuer at all says so first.
    expect(versionJobRefusal('Renewal', 'server', certificate(null, ''), 'vault_pki')?.code).toBe(
      'certificate_not_renewable',
    );
  });

  it.each([
    ['Renewal', 'server', 'ACME', '', 'certificate_not_renewable'],
    ['Renewal', 'agent', 'ACME', '', 'certificate_not_renewable'],
    ['Renewal', 'server', 'EST', '', 'certificate_not_renewable'],
    ['Issuance', 'server', 'EST', '', null],
    ['Renewal', 'server', 'SCEP', '', 'certificate_not_renewable'],
    ['Renewal', 'server', 'ACME', 'edge-1', null],
    ['Renewal', 'agent', 'EST', 'edge-1', null],
    ['Renewal', 'server', 'Agent', '', null],
    ['Deployment', 'server', 'ACME', '', null],
  ] as const)(
    'a %s job in %s key generation of a certificate from %s with agent %j: %s',
    (type, mode, source, agent, code) => {
      expect(versionJobRefusal(type, mode, certificate('iss-local', agent, source))?.code ?? null).toBe(code);
    },
  );

  it.each([
    ['ACME', /issued to an ACME client.*renew-early.*agent_id/],
    ['EST', /enrolled over EST.*simplereenroll.*next version.*agent_id/],
    ['SCEP', /enrolled over SCEP.*RenewalReq.*next version.*agent_id/],
  ] as const)('tells how a certificate its %s client renews is renewed', (source, message) => {
    expect(versionJobRefusal('Renewal', 'server', certificate('iss-local', '', source))).toEqual({
      code: 'certificate_not_renewable',
      field: 'agent_id',
      message: expect.stringMatching(message),
    });
  });
});

describe('renewedByTheLoop', () => {
  it.each([
    ['', '', true],
    ['API', '', true],
    ['Agent', 'edge-1', true],
    ['ACME', '', false],
    ['EST', '', false],
    ['SCEP', '', false],
    ['ACME', 'edge-1', true],
    ['EST', 'edge-1', true],
    ['SCEP', 'edge-1', true],
  ] as const)('a certificate from source %j with agent %j: %s', (source, agent_id, renewed) => {
    expect(renewedByTheLoop({ source, agent_id })).toBe(renewed);
  });

  it('leaves every enrollment protocol to its client, and no other source', () => {
    const leftToClients = CERTIFICATE_SOURCES.filter((source) => !renewedByTheLoop({ source, agent_id: '' }));
    expect([...leftToClients].sort()).toEqual(['ACME', 'EST', 'SCEP']);
  });
});
