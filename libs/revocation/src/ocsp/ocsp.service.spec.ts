import { Counter } from 'prom-client';
import { CertlaneError, ErrorCode } from '@certlane/contracts';
import { CertlaneConfig, CertlaneLogger, ConsumerProgress, MessageBus, Metrics } from '@certlane/platform';
import {
  createOcspRequest,
  createSelfSignedCa,
  IssuerHashes,
  OcspResponder,
  SoftwareKeyProvider,
} from '@certlane/pki';
import { IssuerCaDirectory } from '../issuer-ca.directory';
import { IssuedSerials } from '../issued/issued-serials';
import { RevocationRepository } from '../revocations/revocation.repository';
import { RevocationFiles } from '../publication/revocation-files';
import { ocspGetKey } from './ocsp-http';
import { OCSP_BACKLOG_POLL_MS, OcspService } from './ocsp.service';
import { LoadedResponder, ResponderKeys } from './responder-keys';

const ISSUER = 'iss-local';
const CA = 'ca-1';

/** A fake clock's start: the next whole hour. `clock('10:31:00')` is 31 minutes after it. */
const T0 = new Date(Math.ceil(Date.now() / 3_600_000) * 3_600_000);
const clock = (time: string) => {
  const [hours, minutes, seconds] = time.split(':').map(Number);
  return new Date(T0.getTime() + ((hours - 10) * 3600 + minutes * 60 + seconds) * 1000);
};

/** A local CA serial (17 octets, first bits 01) as hex. */
const serialOf = (n: number) => `4${n.toString(16).padStart(33, '0')}`;

/**
 * The OCSP service over fakes of its collaborators: a local CA issuer with one CA whose own key
 * signs, which issued the serials in `issued`; nothing is revoked.
 */
describe(OcspService.name, () => {
  let hashes: IssuerHashes;
  let loaded: LoadedResponder;
  const issued = new Set<string>();

  beforeAll(async () => {
    const { signer } = await new SoftwareKeyProvider().generate({ algorithm: 'ECDSA', curve: 'P-256' });
    const now = Date.now();
    const ca = await createSelfSignedCa({
      subject: [['CN', 'ocsp service test']],
      signer,
      notBefore: new Date(now - 60_000),
      notAfter: new Date(now + 3 * 86_400_000),
    });
    hashes = new IssuerHashes(ca.der);
    // Not due for renewal within the fake clocks' two hours (a renewal drops the cache).
    loaded = {
      caId: CA,
      responder: new OcspResponder({ issuer: ca.der, signer }),
      renewAt: new Date(now + 86_400_000),
      notAfter: new Date(now + 3 * 86_400_000),
    };
  });

  /**
   * The bus as the service uses it: the fan-out subscription, reconnects, and the revocations
   * consumer's progress (settable; an Error makes the read fail).
   */
  function fakeBus(progress: ConsumerProgress | Error = { published: 0, acknowledged: 0 }) {
    const reconnects: (() => void)[] = [];
    const state = {
      progress,
      bus: {
        subscribe: async () => undefined,
        onReconnect: (listener: () => void) => void reconnects.push(listener),
        consumerProgress: async () => {
          if (state.progress instanceof Error) throw state.progress;
          return state.progress;
        },
      } as unknown as MessageBus,
      reconnect: () => reconnects.forEach((listener) => listener()),
    };
    return state;
  }

  const started: OcspService[] = [];
  afterEach(() => {
    for (const ocsp of started.splice(0)) ocsp.onApplicationShutdown();
    jest.useRealTimers();
    jest.restoreAllMocks();
  });

  /** The service, bootstrapped (by default on a bus whose revocations consumer has no backlog). */
  async function service(
    options: {
      cacheBytes?: number;
      table?: Partial<Pick<RevocationRepository, 'find' | 'consumed' | 'consumedMany'>>;
      bus?: MessageBus;
      /** Set to make the issuer directory fail as when issuance is unreachable. */
      directoryDown?: { down: boolean };
    } = {},
  ) {
    const metrics = new Metrics('revocation');
    const info = {
      kind: 'local_ca',
      ca_id: CA,
      cas: [{ ca_id: CA }],
      capabilities: { ocsp: true, crl: true },
    };
    const reachable = async () => {
      if (options.directoryDown?.down) throw new Error('issuance did not answer');
      return info;
    };
    const directory = {
      require: reachable,
      get: reachable,
      route: async () => {
        await reachable();
        return CA;
      },
      noteCa: () => undefined,
    } as unknown as IssuerCaDirectory;
    const revocations = {
      find: async () => undefined,
      consumed: async () => false,
      consumedMany: async () => [],
      listForCa: async () => [],
      ...options.table,
    } as unknown as RevocationRepository;
    const serials = {
      caOf: async (_issuer: string, serial: string) => (issued.has(serial) ? CA : null),
    } as unknown as IssuedSerials;
    const keys = { load: async () => loaded } as unknown as ResponderKeys;
    const config = {
      revocation: {
        ocspRefreshBeforeMs: 30 * 60_000,
        ocspSweepIntervalMs: 30_000,
        ocspCacheMaxBytes: options.cacheBytes ?? 32 * 1024 * 1024,
      },
    } as unknown as CertlaneConfig;
    const logger = { warn: () => undefined, info: () => undefined } as unknown as CertlaneLogger;
    const ocsp = new OcspService(
      options.bus ?? fakeBus().bus,
      logger,
      config,
      metrics,
      directory,
      revocations,
      serials,
      keys,
      new RevocationFiles(config, logger),
    );
    await ocsp.onApplicationBootstrap();
    started.push(ocsp);
    const signed = async () =>
      (
        await (metrics.registry.getSingleMetric('certlane_ocsp_responses_signed_total') as Counter).get()
      ).values.reduce((sum, v) => sum + v.value, 0);
    return { ocsp, signed };
  }

  /** A GET about `serial` as the controller hands it over: the decoded DER and the raw-path key. */
  const getRequest = (serial: string) => {
    const der = createOcspRequest([hashes.certId(serial)]);
    return { der, key: ocspGetKey(encodeURIComponent(der.toString('base64'))) };
  };

  it('does not cache an answer about a serial the CA never issued: each such request is signed on demand', async () => {
    const { ocsp, signed } = await service();
    for (let i = 1; i <= 200; i++) {
      const { der, key } = getRequest(serialOf(i));
      const answer = await ocsp.answer(ISSUER, der, key);
      expect(answer.times).toBeDefined();
      expect(ocsp.cached(ISSUER, key)).toBeUndefined();
    }
    const { der, key } = getRequest(serialOf(1));
    await ocsp.answer(ISSUER, der, key);
    expect(await signed()).toBe(201);
  });

  it('answers an unknown serial again the same way (unknown), and the same serial good once issued', async () => {
    const { ocsp } = await service();
    const serial = serialOf(0xabc);
    const { der, key } = getRequest(serial);
    const unknown = await ocsp.answer(ISSUER, der, key);
    const certIdDer = hashes.certId(serial).der;
    expect(unknown.der.includes(Buffer.concat([certIdDer, Buffer.from([0x82, 0x00])]))).toBe(true);
    issued.add(serial);
    const good = await ocsp.answer(ISSUER, der, key);
    expect(good.der.includes(Buffer.concat([certIdDer, Buffer.from([0x80, 0x00])]))).toBe(true);
  });

  it('caches the answer about an issued serial and finds it again by the exact request', async () => {
    const { ocsp, signed } = await service();
    const serial = serialOf(0xdef);
    issued.add(serial);
    const { der, key } = getRequest(serial);
    const first = await ocsp.answer(ISSUER, der, key);
    expect(ocsp.cached(ISSUER, key)?.der).toEqual(first.der);
    expect(await signed()).toBe(1);
  });

  it('keeps no more cached answers than its configured byte bound allows', async () => {
    const { ocsp } = await service({ cacheBytes: 1024 * 1024 });
    const keys: string[] = [];
    for (let i = 1; i <= 1500; i++) {
      const serial = serialOf(0x10000 + i);
      issued.add(serial);
      const { der, key } = getRequest(serial);
      await ocsp.answer(ISSUER, der, key);
      keys.push(key);
    }
    expect(ocsp.cached(ISSUER, keys[0])).toBeUndefined();
    expect(ocsp.cached(ISSUER, keys[keys.length - 1])).toBeDefined();
  });

  /** A row of the revocations table: `serial` revoked for keyCompromise under `caId`. */
  const storedRow = (serial: string, caId: string | null = CA) => ({
    issuer_id: ISSUER,
    serial_hex: serial,
    reason: 'keyCompromise' as const,
    revoked_at: new Date(),
    ca_id: caId,
  });
  /** The certStatus a response gives the CertID (RFC 6960 4.2.1), or the responseStatus of an error. */
  const statusIn = (der: Buffer, serial: string, hash: 'sha1' | 'sha256' = 'sha1'): string => {
    if (der.length === 5) return ['successful', 'malformedRequest', 'internalError', 'tryLater'][der[4]];
    const certId = hashes.certId(serial, hash).der;
    const tag = der[der.indexOf(certId) + certId.length];
    return ({ 0x80: 'good', 0xa1: 'revoked', 0x82: 'unknown' } as Record<number, string>)[tag] ?? 'none';
  };
  /** A request with a nonce: answered from a fresh status, never from the cache. */
  const fresh = (serial: string) =>
    createOcspRequest([hashes.certId(serial)], { nonce: Buffer.alloc(16, 7) });
  const revokedEvent = (serial: string) => ({
    issuer_id: ISSUER,
    serial_hex: serial,
    reason: 'keyCompromise' as const,
    revoked_at: new Date().toISOString(),
  });

  it('RFC 6960 2.2: a serial revoked under another CA of the issuer is unknown here, not revoked without the extended revoked definition', async () => {
    const serial = serialOf(0x6001);
    let stored = storedRow(serial, 'ca-other');
    const { ocsp } = await service({ table: { find: async () => stored } });
    expect(statusIn((await ocsp.answer(ISSUER, fresh(serial))).der, serial)).toBe('unknown');
    // The CA that issued it, or one not known yet, answers revoked.
    for (const caId of [CA, null]) {
      stored = storedRow(serial, caId);
      expect(statusIn((await ocsp.answer(ISSUER, fresh(serial))).der, serial)).toBe('revoked');
    }
  });

  describe('a revocation heard on the bus while the revocations table lags (RFC 6960 2.2)', () => {
    it('stays revoked however long the table lacks it (it was good again after 10 minutes)', async () => {
      const serial = serialOf(0x5001);
      issued.add(serial);
      const { ocsp } = await service();
      ocsp.heardOnBus(revokedEvent(serial) as never, 'event-1');
      expect(statusIn((await ocsp.answer(ISSUER, fresh(serial))).der, serial)).toBe('revoked');
      const later = Date.now() + 3_600_000;
      jest.spyOn(Date, 'now').mockReturnValue(later);
      expect(statusIn((await ocsp.answer(ISSUER, fresh(serial))).der, serial)).toBe('revoked');
    });

    it('leaves memory once the table holds it, and the table answers from then on', async () => {
      const serial = serialOf(0x5002);
      issued.add(serial);
      let stored = false;
      const { ocsp } = await service({
        table: {
          find: async () => (stored ? storedRow(serial) : undefined),
          consumed: async () => stored,
        },
      });
      ocsp.heardOnBus(revokedEvent(serial) as never, 'event-2');
      stored = true;
      jest.spyOn(Date, 'now').mockReturnValue(Date.now() + 61_000);
      // The table holds it: the heard entry is confirmed and let go, and the table answers from now on.
      const answer = (await ocsp.answer(ISSUER, fresh(serial))).der;
      expect(statusIn(answer, serial)).toBe('revoked');
      stored = false;
      expect(statusIn((await ocsp.answer(ISSUER, fresh(serial))).der, serial)).toBe('good');
    });

    it('past its memory bound, answers tryLater (never good) about serials the table lacks until the consumer caught up', async () => {
      const serial = serialOf(0x5003);
      const other = serialOf(0x5004);
      issued.add(serial);
      issued.add(other);
      let consumedUpTo = false;
      const { ocsp } = await service({
        table: {
          consumed: async () => consumedUpTo,
          find: async (_issuer: string, asked: string) =>
            consumedUpTo && asked === serial ? storedRow(serial) : undefined,
        },
      });
      ocsp.heardOnBus(revokedEvent(serial) as never, 'event-first');
      for (let i = 0; i < 25_000; i++)
        ocsp.heardOnBus(revokedEvent(serialOf(0x100000 + i)) as never, `event-${i}`);
      expect(statusIn((await ocsp.answer(ISSUER, fresh(serial))).der, serial)).toBe('tryLater');
      expect(statusIn((await ocsp.answer(ISSUER, fresh(other))).der, other)).toBe('tryLater');
      // A revocation still held in memory is answered all along.
      const kept = serialOf(0x100000 + 24_999);
      expect(statusIn((await ocsp.answer(ISSUER, fresh(kept))).der, kept)).toBe('revoked');
      consumedUpTo = true;
      expect(statusIn((await ocsp.answer(ISSUER, fresh(serial))).der, serial)).toBe('revoked');
      expect(statusIn((await ocsp.answer(ISSUER, fresh(other))).der, other)).toBe('good');
    });
  });

  describe('a replica that starts, or reconnects, while the revocations consumer has a backlog (RFC 6960 2.2)', () => {
    const fakeClock = () => jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate'] });

    it('answers tryLater, never good, about a serial the table lacks until the consumer has acknowledged what was published before the replica heard the fan-out', async () => {
      fakeClock();
      const serial = serialOf(0x7001);
      const listed = serialOf(0x7002);
      issued.add(serial);
      issued.add(listed);
      const bus = fakeBus({ published: 500, acknowledged: 20 });
      const { ocsp } = await service({
        bus: bus.bus,
        table: {
          find: async (_issuer: string, asked: string) => (asked === listed ? storedRow(listed) : undefined),
        },
      });
      const { der, key } = getRequest(serial);
      expect(statusIn((await ocsp.answer(ISSUER, der, key)).der, serial)).toBe('tryLater');
      expect(ocsp.cached(ISSUER, key)).toBeUndefined();
      expect(statusIn((await ocsp.answer(ISSUER, fresh(serial))).der, serial)).toBe('tryLater');
      // What the table lists is answered throughout.
      expect(statusIn((await ocsp.answer(ISSUER, fresh(listed))).der, listed)).toBe('revoked');

      // Events published since are heard on the fan-out: the consumer need only pass position 500.
      bus.progress = { published: 800, acknowledged: 499 };
      await jest.advanceTimersByTimeAsync(OCSP_BACKLOG_POLL_MS);
      expect(statusIn((await ocsp.answer(ISSUER, der, key)).der, serial)).toBe('tryLater');
      bus.progress = { published: 900, acknowledged: 500 };
      await jest.advanceTimersByTimeAsync(OCSP_BACKLOG_POLL_MS);
      expect(statusIn((await ocsp.answer(ISSUER, der, key)).der, serial)).toBe('good');
      expect(ocsp.cached(ISSUER, key)).toBeDefined();
    });

    it("answers tryLater while the consumer's progress cannot be read, and good once it shows no backlog", async () => {
      fakeClock();
      const serial = serialOf(0x7003);
      issued.add(serial);
      const bus = fakeBus(new Error('nats: disconnected'));
      const { ocsp } = await service({ bus: bus.bus });
      expect(statusIn((await ocsp.answer(ISSUER, fresh(serial))).der, serial)).toBe('tryLater');
      bus.progress = { published: 7, acknowledged: 7 };
      await jest.advanceTimersByTimeAsync(OCSP_BACKLOG_POLL_MS);
      expect(statusIn((await ocsp.answer(ISSUER, fresh(serial))).der, serial)).toBe('good');
    });

    it('answers tryLater again after the bus connection came back (fan-out events were missed) until the consumer has caught up with them', async () => {
      fakeClock();
      const serial = serialOf(0x7004);
      issued.add(serial);
      const bus = fakeBus({ published: 10, acknowledged: 10 });
      const { ocsp } = await service({ bus: bus.bus });
      expect(statusIn((await ocsp.answer(ISSUER, fresh(serial))).der, serial)).toBe('good');
      bus.progress = { published: 30, acknowledged: 12 };
      bus.reconnect();
      await jest.advanceTimersByTimeAsync(0);
      expect(statusIn((await ocsp.answer(ISSUER, fresh(serial))).der, serial)).toBe('tryLater');
      bus.progress = { published: 40, acknowledged: 30 };
      await jest.advanceTimersByTimeAsync(OCSP_BACKLOG_POLL_MS);
      expect(statusIn((await ocsp.answer(ISSUER, fresh(serial))).der, serial)).toBe('good');
    });
  });

  describe('signatures racing revocations', () => {
    it('signs each cache miss once and caches it while certificates of other serials are issued meanwhile', async () => {
      const roundTrip = () => new Promise((resolve) => setTimeout(resolve, 2));
      const { ocsp, signed } = await service({
        table: {
          find: async () => {
            await roundTrip();
            return undefined;
          },
        },
      });
      let stop = false;
      let n = 0;
      const issuing = (async () => {
        while (!stop) {
          ocsp.issued({
            issuer_id: ISSUER,
            ca_id: CA,
            serial_hex: `5${(n++).toString(16).padStart(33, '0')}`,
          } as never);
          await new Promise((resolve) => setTimeout(resolve, 1));
        }
      })();
      let cached = 0;
      for (let i = 0; i < 50; i++) {
        const serial = serialOf(0x8000 + i);
        issued.add(serial);
        const { der, key } = getRequest(serial);
        await ocsp.answer(ISSUER, der, key);
        if (ocsp.cached(ISSUER, key)) cached++;
      }
      stop = true;
      await issuing;
      expect(n).toBeGreaterThan(50);
      expect({ signed: await signed(), cached }).toEqual({ signed: 50, cached: 50 });
    });

    it('does not sign again when another serial is revoked during a signature', async () => {
      const serial = serialOf(0x8101);
      issued.add(serial);
      let release!: () => void;
      const lookedUp = new Promise<void>((resolve) => (release = resolve));
      let asked!: () => void;
      const asking = new Promise<void>((resolve) => (asked = resolve));
      const { ocsp, signed } = await service({
        table: {
          find: async (_issuer: string, which: string) => {
            if (which === serial) {
              asked();
              await lookedUp;
            }
            return undefined;
          },
        },
      });
      const { der, key } = getRequest(serial);
      const answering = ocsp.answer(ISSUER, der, key);
      await asking;
      ocsp.revoked(revokedEvent(serialOf(0x8102)) as never);
      release();
      expect(statusIn((await answering).der, serial)).toBe('good');
      expect(ocsp.cached(ISSUER, key)).toBeDefined();
      expect(await signed()).toBe(1);
    });

    it('signs again, and never caches good, when the serial itself is revoked during its signature', async () => {
      const serial = serialOf(0x8103);
      issued.add(serial);
      let release!: () => void;
      const lookedUp = new Promise<void>((resolve) => (release = resolve));
      let asked!: () => void;
      const asking = new Promise<void>((resolve) => (asked = resolve));
      let first = true;
      const { ocsp } = await service({
        table: {
          find: async () => {
            if (first) {
              first = false;
              asked();
              await lookedUp;
            }
            return undefined;
          },
        },
      });
      const { der, key } = getRequest(serial);
      const answering = ocsp.answer(ISSUER, der, key);
      await asking;
      ocsp.heardOnBus(revokedEvent(serial) as never, 'event-race');
      release();
      expect(statusIn((await answering).der, serial)).toBe('revoked');
      const hit = ocsp.cached(ISSUER, key);
      expect(hit && statusIn(hit.der, serial)).toBe('revoked');
    });
  });

  describe('a cached answer past its refresh time while signing fails', () => {
    const at = (time: string) => jest.setSystemTime(clock(time));
    const refused = () =>
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });

    it('is served, the same signed response, while the database is unreachable, until five minutes before its nextUpdate; then tryLater', async () => {
      jest.useFakeTimers({ now: T0, doNotFake: ['nextTick', 'setImmediate'] });
      const serial = serialOf(0x9001);
      issued.add(serial);
      const database = { down: false };
      const { ocsp } = await service({
        table: {
          find: async () => {
            if (database.down) throw refused();
            return undefined;
          },
        },
      });
      const { der, key } = getRequest(serial);
      const first = await ocsp.answer(ISSUER, der, key);
      expect(statusIn(first.der, serial)).toBe('good');
      expect(first.times?.nextUpdate).toEqual(clock('11:00:00'));

      database.down = true;
      at('10:31:00');
      const stale = await ocsp.answer(ISSUER, der, key);
      expect(stale.der.equals(first.der)).toBe(true);
      // The fast lane serves it too (until the next attempt to sign).
      expect(ocsp.cached(ISSUER, key)?.der.equals(first.der)).toBe(true);
      await ocsp.sweep();
      at('10:54:59');
      expect((await ocsp.answer(ISSUER, der, key)).der.equals(first.der)).toBe(true);
      at('10:55:00');
      expect(statusIn((await ocsp.answer(ISSUER, der, key)).der, serial)).toBe('tryLater');
      expect(ocsp.cached(ISSUER, key)).toBeUndefined();

      database.down = false;
      expect(statusIn((await ocsp.answer(ISSUER, der, key)).der, serial)).toBe('good');
    });

    it('is served while issuance is unreachable too', async () => {
      jest.useFakeTimers({ now: T0, doNotFake: ['nextTick', 'setImmediate'] });
      const serial = serialOf(0x9002);
      issued.add(serial);
      const issuance = { down: false };
      const { ocsp } = await service({ directoryDown: issuance });
      const { der, key } = getRequest(serial);
      const first = await ocsp.answer(ISSUER, der, key);
      issuance.down = true;
      at('10:40:00');
      expect((await ocsp.answer(ISSUER, der, key)).der.equals(first.der)).toBe(true);
    });

    it('is not served once a revocation of its serial was heard that could not be signed: a cached good goes at once', async () => {
      jest.useFakeTimers({ now: T0, doNotFake: ['nextTick', 'setImmediate'] });
      const serial = serialOf(0x9003);
      issued.add(serial);
      const issuance = { down: false };
      const { ocsp } = await service({ directoryDown: issuance });
      const { der, key } = getRequest(serial);
      expect(statusIn((await ocsp.answer(ISSUER, der, key)).der, serial)).toBe('good');
      issuance.down = true;
      at('10:05:00');
      ocsp.heardOnBus(revokedEvent(serial) as never, 'event-unsigned');
      await jest.advanceTimersByTimeAsync(0);
      expect(ocsp.cached(ISSUER, key)).toBeUndefined();
      at('10:40:00');
      expect(statusIn((await ocsp.answer(ISSUER, der, key)).der, serial)).toBe('tryLater');
    });

    it('is not served while the replica catches up with revocations it may have missed', async () => {
      jest.useFakeTimers({ now: T0, doNotFake: ['nextTick', 'setImmediate'] });
      const serial = serialOf(0x9004);
      issued.add(serial);
      const bus = fakeBus({ published: 3, acknowledged: 3 });
      const database = { down: false };
      const { ocsp } = await service({
        bus: bus.bus,
        table: {
          find: async () => {
            if (database.down) throw refused();
            return undefined;
          },
        },
      });
      const { der, key } = getRequest(serial);
      expect(statusIn((await ocsp.answer(ISSUER, der, key)).der, serial)).toBe('good');
      at('10:31:00');
      database.down = true;
      bus.progress = { published: 9, acknowledged: 3 };
      bus.reconnect();
      await jest.advanceTimersByTimeAsync(0);
      expect(statusIn((await ocsp.answer(ISSUER, der, key)).der, serial)).toBe('tryLater');
    });
  });

  describe('heard revocations are let go by event, not by reason (hold, release, hold again)', () => {
    /**
     * The revocations table as the consumer keeps it, applying the events of one serial in order:
     * the row they leave and the inbox of the events applied.
     */
    function replayingTable(serial: string) {
      const applied: string[] = [];
      let row: ReturnType<typeof storedRow> | undefined;
      return {
        apply(eventId: string, reason: 'certificateHold' | 'removeFromCRL') {
          applied.push(eventId);
          row = reason === 'removeFromCRL' ? undefined : { ...storedRow(serial), reason: reason as never };
        },
        table: {
          find: async () => row,
          consumed: async (_consumer: string, eventId: string) => applied.includes(eventId),
          consumedMany: async (_consumer: string, ids: string[]) => ids.filter((id) => applied.includes(id)),
        },
      };
    }
    const event = (serial: string, reason: string) => ({ ...revokedEvent(serial), reason }) as never;

    it('answers the last hold heard, never good, until the consumer has applied it', async () => {
      jest.useFakeTimers({ now: T0, doNotFake: ['nextTick', 'setImmediate'] });
      const serial = serialOf(0xa001);
      issued.add(serial);
      const replay = replayingTable(serial);
      const { ocsp } = await service({ table: replay.table });
      ocsp.heardOnBus(event(serial, 'certificateHold'), 'e1');
      ocsp.heardOnBus(event(serial, 'removeFromCRL'), 'e2');
      ocsp.heardOnBus(event(serial, 'certificateHold'), 'e3');
      await jest.advanceTimersByTimeAsync(0);
      const sha256 = createOcspRequest([hashes.certId(serial, 'sha256')]);
      const { der, key } = getRequest(serial);

      replay.apply('e1', 'certificateHold');
      at('10:01:30');
      expect(statusIn((await ocsp.answer(ISSUER, sha256)).der, serial, 'sha256')).toBe('revoked');
      await ocsp.sweep();
      replay.apply('e2', 'removeFromCRL');
      at('10:03:00');
      await ocsp.sweep();
      expect(statusIn((await ocsp.answer(ISSUER, der, key)).der, serial)).toBe('revoked');
      expect(statusIn((await ocsp.answer(ISSUER, fresh(serial))).der, serial)).toBe('revoked');
      replay.apply('e3', 'certificateHold');
      at('10:20:00');
      const hit = ocsp.cached(ISSUER, key);
      expect(hit && statusIn(hit.der, serial)).toBe('revoked');

      function at(time: string) {
        jest.setSystemTime(clock(time));
      }
    });

    it('answers the release heard, never revoked, until the consumer has applied it', async () => {
      jest.useFakeTimers({ now: T0, doNotFake: ['nextTick', 'setImmediate'] });
      const serial = serialOf(0xa002);
      issued.add(serial);
      const replay = replayingTable(serial);
      const { ocsp } = await service({ table: replay.table });
      ocsp.heardOnBus(event(serial, 'certificateHold'), 'e1');
      ocsp.heardOnBus(event(serial, 'removeFromCRL'), 'e2');
      await jest.advanceTimersByTimeAsync(0);
      // Nothing applied yet: no row, which the release must not be taken as confirmed by.
      jest.setSystemTime(clock('10:01:30'));
      expect(statusIn((await ocsp.answer(ISSUER, fresh(serial))).der, serial)).toBe('good');
      await ocsp.sweep();
      replay.apply('e1', 'certificateHold');
      jest.setSystemTime(clock('10:03:00'));
      await ocsp.sweep();
      const { der, key } = getRequest(serial);
      expect(statusIn((await ocsp.answer(ISSUER, der, key)).der, serial)).toBe('good');
      expect(statusIn((await ocsp.answer(ISSUER, fresh(serial))).der, serial)).toBe('good');
    });
  });

  describe('the gateway route (GET /api/v1/ocsp/{issuer_id}/{serial})', () => {
    it.each(['0', '00', 'f'.repeat(40)])(
      'refuses serial %s (not a positive serial of at most 20 octets) as validation_failed, not an internal error',
      async (serial) => {
        const { ocsp } = await service();
        const error = await ocsp.forSerial(ISSUER, serial).catch((thrown: unknown) => thrown);
        expect(error).toBeInstanceOf(CertlaneError);
        expect((error as CertlaneError).code).toBe(ErrorCode.ValidationFailed);
      },
    );
  });
});
