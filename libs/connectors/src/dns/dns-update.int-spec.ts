import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { BindServer, freePort, startBind } from '@certlane/testing';
import { DnsUpdateError, sendDnsUpdate } from './dns-update-client';
import { TsigKey } from './dns-update';

const ZONE = 'update.test';

/** RFC 2136 updates signed with TSIG (RFC 8945) against a real BIND 9 that checks the signature. */
describe('DNS UPDATE with TSIG against BIND', () => {
  let bind: BindServer;
  const key: TsigKey = {
    name: 'certlane-key',
    algorithm: 'hmac-sha256',
    secret: randomBytes(32).toString('base64'),
  };
  const server = () => ({ host: '127.0.0.1', port: bind.port });
  const txt = (name: string) =>
    execFileSync('dig', ['+short', '+norecurse', '-p', String(bind.port), '@127.0.0.1', name, 'TXT'], {
      encoding: 'utf8',
    })
      .split('\n')
      .filter(Boolean)
      .sort();

  beforeAll(async () => {
    bind = await startBind(ZONE, await freePort(), [], { tsigKey: key });
  });

  afterAll(() => bind?.stop());

  it('adds TXT values, deletes one leaving the other, and deletes them all', async () => {
    const name = `_acme-challenge.www.${ZONE}`;
    await sendDnsUpdate(
      server(),
      ZONE,
      [
        { op: 'add', name, value: 'first', ttl: 60 },
        { op: 'add', name, value: 'second', ttl: 60 },
      ],
      key,
    );
    expect(txt(name)).toEqual(['"first"', '"second"']);
    await sendDnsUpdate(server(), ZONE, [{ op: 'delete', name, value: 'first' }], key);
    expect(txt(name)).toEqual(['"second"']);
    await sendDnsUpdate(server(), ZONE, [{ op: 'delete-all', name }], key);
    expect(txt(name)).toEqual([]);
  });

  it('writes a value longer than 255 bytes as several character-strings', async () => {
    const name = `long.${ZONE}`;
    await sendDnsUpdate(server(), ZONE, [{ op: 'add', name, value: 'x'.repeat(300), ttl: 60 }], key);
    expect(txt(name)).toEqual([`"${'x'.repeat(255)}" "${'x'.repeat(45)}"`]);
  });

  it('RFC 8945 5.2: an update signed with another secret is refused (NOTAUTH) and changes nothing', async () => {
    const name = `forged.${ZONE}`;
    const forged = { ...key, secret: randomBytes(32).toString('base64') };
    const refused = await sendDnsUpdate(
      server(),
      ZONE,
      [{ op: 'add', name, value: 'x', ttl: 60 }],
      forged,
    ).then(
      () => null,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(DnsUpdateError);
    expect((refused as DnsUpdateError).rcode).toBe('NOTAUTH');
    expect(txt(name)).toEqual([]);
  });

  it('an unsigned update is refused where the zone allows only the key', async () => {
    const refused = await sendDnsUpdate(server(), ZONE, [
      { op: 'add', name: `u.${ZONE}`, value: 'x', ttl: 60 },
    ]).then(
      () => null,
      (error: unknown) => error,
    );
    expect((refused as DnsUpdateError).rcode).toBe('REFUSED');
  });

  it('RFC 8945 5.2.3: an update signed outside the fudge window is refused (NOTAUTH, BADTIME)', async () => {
    const name = `stale.${ZONE}`;
    const refused = await sendDnsUpdate(server(), ZONE, [{ op: 'add', name, value: 'x', ttl: 60 }], key, {
      now: new Date(Date.now() - 3_600_000),
    }).then(
      () => null,
      (error: unknown) => error,
    );
    expect((refused as DnsUpdateError).rcode).toBe('NOTAUTH');
    expect(txt(name)).toEqual([]);
  });

  it('reports a server that does not answer as an error without a response code', async () => {
    const closed = await sendDnsUpdate({ host: '127.0.0.1', port: await freePort() }, ZONE, [
      { op: 'delete-all', name: `x.${ZONE}` },
    ]).then(
      () => null,
      (error: unknown) => error,
    );
    expect(closed).toBeInstanceOf(DnsUpdateError);
    expect((closed as DnsUpdateError).rcode).toBeNull();
  });
});
