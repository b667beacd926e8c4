import { Counter } from 'prom-client';
import { CertlaneConfig, CertlaneLogger, MessageBus, Metrics } from '@certlane/platform';
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
import { OcspService } from './ocsp.service';
import { LoadedResponder, ResponderKeys } from './responder-keys';

const ISSUER = 'iss-local';
const CA = 'ca-1';

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
      notAfter: new Date(now + 86_400_000),
    });
    hashes = new IssuerHashes(ca.der);
    loaded = {
      caId: CA,
      responder: new OcspResponder({ issuer: ca.der, signer }),
      renewAt: new Date(now + 3_600_000),
      notAfter: new Date(now + 86_400_000),
    };
  });

  function service(
    ocspCacheMaxBytes = 32 * 1024 * 1024,
    table: Partial<Pick<RevocationRepository, 'find' | 'findMany' | 'consumed'>> = {},
  ) {
    const metrics = new Metrics('revocation');
    const info = {
      kind: 'local_ca',
      ca_id: CA,
      cas: [{ ca_id: CA }],
      capabilities: { ocsp: true, crl: true },
    };
    const directory = {
      require: async () => info,
      get: async () => info,
      route: async () => CA,
      noteCa: () => undefined,
    } as unknown as IssuerCaDirectory;
    const revocations = {
      find: async () => undefined,
      findMany: async () => [],
      consumed: async () => false,
      listForCa: async () => [],
      ...table,
    } as unknown as RevocationRepository;
    const serials = {
      caOf: async (_issuer: string, serial: string) => (issued.has(serial) ? CA : null),
    } as unknown as IssuedSerials;
    const keys = { load: async () => loaded } as unknown as ResponderKeys;
    const config = {
      revocation: { ocspRefreshBeforeMs: 30 * 60_000, ocspSweepIntervalMs: 30_000, ocspCacheMaxBytes },
    } as unknown as CertlaneConfig;
    const logger = { warn: () => undefined } as unknown as CertlaneLogger;
    const ocsp = new OcspService(
      {} as MessageBus,
      logger,
      config,
      metrics,
      directory,
      revocations,
      serials,
      keys,
      new RevocationFiles(config, logger),
    );
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
    const { ocsp, signed } = service();
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
    const { ocsp } = service();
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
    const { ocsp, signed } = service();
    const serial = serialOf(0xdef);
    issued.add(serial);
    const { der, key } = getRequest(serial);
    const first = await ocsp.answer(ISSUER, der, key);
    expect(ocsp.cached(ISSUER, key)?.der).toEqual(first.der);
    expect(await signed()).toBe(1);
  });

  it('keeps no more cached answers than its configured byte bound allows', async () => {
    const { ocsp } = service(1024 * 1024);
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
  const statusIn = (der: Buffer, serial: string): string => {
    if (der.length === 5) return ['successful', 'malformedRequest', 'internalError', 'tryLater'][der[4]];
    const certId = hashes.certId(serial).der;
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
    const { ocsp } = service(undefined, { find: async () => stored });
    expect(statusIn((await ocsp.answer(ISSUER, fresh(serial))).der, serial)).toBe('unknown');
    // The CA that issued it, or one not known yet, answers revoked.
    for (const caId of [CA, null]) {
      stored = storedRow(serial, caId);
      expect(statusIn((await ocsp.answer(ISSUER, fresh(serial))).der, serial)).toBe('revoked');
    }
  });

  describe('a revocation heard on the bus while the revocations table lags (RFC 6960 2.2)', () => {
    afterEach(() => jest.restoreAllMocks());

    it('stays revoked however long the table lacks it (it was good again after 10 minutes)', async () => {
      const serial = serialOf(0x5001);
      issued.add(serial);
      const { ocsp } = service();
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
      const { ocsp } = service(undefined, {
        find: async () => (stored ? storedRow(serial) : undefined),
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
      const { ocsp } = service(undefined, {
        consumed: async () => consumedUpTo,
        find: async (_issuer: string, asked: string) =>
          consumedUpTo && asked === serial ? storedRow(serial) : undefined,
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
});
