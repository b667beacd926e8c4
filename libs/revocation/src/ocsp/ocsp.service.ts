import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { Counter } from 'prom-client';
import { CertificateIssued, CertificateRevoked, CertlaneError, ErrorCode } from '@certlane/contracts';
import {
  CERTLANE_CONFIG,
  CertlaneConfig,
  CertlaneLogger,
  httpStatusFor,
  LOGGER,
  MESSAGE_BUS,
  MessageBus,
  Metrics,
  METRICS,
} from '@certlane/platform';
import {
  CertId,
  CertStatus,
  ocspErrorResponse,
  OcspErrorStatus,
  OcspRequest,
  parseOcspRequest,
  parseSerialHex,
  PkiError,
} from '@certlane/pki';
import { IssuerCaDirectory } from '../issuer-ca.directory';
import { IssuanceListener } from '../issued/issued-consumer';
import { IssuedSerials } from '../issued/issued-serials';
import { RevocationFiles } from '../publication/revocation-files';
import { REVOCATION_CONSUMER, RevocationListener } from '../revocations/revocation-consumer';
import { RevocationRepository } from '../revocations/revocation.repository';
import { parseRevokedEvent } from '../revocations/revoked-event';
import { canonicalSerial } from '../serials/canonical-serial';
import { certStatusFor, IssuedByCa, KnownRevocation, plausibleSerial } from './cert-status';
import { LoadedResponder, ResponderKeys } from './responder-keys';
import { CachedResponse, ResponseCache, responseTimes } from './response-cache';
import { HeardRevocation, HeardRevocations } from './heard-revocations';
import { BacklogGate } from './backlog-gate';
import { SigningRaces } from './signing-races';
import { staleAnswerUntil } from './stale-answers';

/** How often the consumer's inbox is asked whether it recorded a revocation heard on the bus. */
const HEARD_RECHECK_MS = 60_000;
/**
 * How often the revocations consumer's progress is read while it has a backlog this replica did
 * not hear (after a start or a reconnect; never otherwise): one JetStream call, off the request path.
 */
export const OCSP_BACKLOG_POLL_MS = 1000;
const REVOKED_SUBJECT = 'issuance.v1.certificate.revoked' as const;
/** Heard revocations the sweep asks the consumer's inbox about at once. */
const HEARD_SETTLE_BATCH = 1000;
/** Revoked serials pre-signed when a responder is loaded (the rest are signed on first request). */
const PRESIGN_MAX = 50_000;
/** Pre-signing stops once the response cache is this full: requested answers must not be evicted for it. */
const PRESIGN_CACHE_SHARE = 0.5;
/**
 * Bound of the revocations heard on the bus and not yet seen recorded: some 16,000 events.
 * One dropped before it was recorded makes would-be `good` answers wait (tryLater) until the
 * consumer has caught up (HeardRevocations).
 */
const HEARD_REVOCATIONS_MAX_BYTES = 4 * 1024 * 1024;

/** Why a response was signed (metric label). */
export type SigningTrigger = 'request' | 'sweep' | 'revocation' | 'issuance' | 'presign';

/** An OCSP answer: a signed response (with its times, for cache headers) or an unsigned error. */
export interface OcspAnswer {
  der: Buffer;
  times?: { producedAt: Date; thisUpdate: Date; nextUpdate: Date };
}

interface ResponderSlot {
  issuerId: string;
  loading: Promise<LoadedResponder>;
  loaded?: LoadedResponder;
}

const slotKey = (issuerId: string, caId: string) => `${issuerId} ${caId}`;
/** The key of a serial in the heard revocations and the signing races. */
const serialKey = (issuerId: string, serialHex: string) => `${issuerId} ${canonicalSerial(serialHex)}`;

/**
 * This replica cannot tell whether the table lacks a revocation of the serial: it did not hear
 * every revocation event (a backlog after a start or reconnect, or heard ones it had to drop).
 * Answered `tryLater`; logged once per episode, not per request.
 */
class RevocationsCatchingUp extends Error {}

/**
 * The OCSP responder of every CA of every issuer (ADR 0021, ADR 0023). A request is routed to the
 * CA its CertID names (issuerNameHash and issuerKeyHash), retired CAs included, and signed by that
 * CA's delegated responder. Responses about one certificate without a nonce (every GET and most
 * POSTs) are pre-signed and cached per CertID, re-signed before they expire (the sweep) and at
 * once when the certificate is revoked; every replica hears revocations on the bus (fan-out), so
 * none keeps serving `good` for a revoked certificate. `good` only for a serial the CA issued, and
 * only while this replica knows every revocation the table may lack: after a start or a reconnect,
 * not before the consumer of revocation events has recorded those it did not hear (BacklogGate).
 * Answers `unknown` (serials never issued) are signed on demand and never cached, and every
 * cache here is bounded in bytes (ADR 0039): requests nobody authenticates cannot grow memory.
 * While signing fails for an outage, a cached answer still valid is served (staleAnswerUntil).
 */
@Injectable()
export class OcspService
  implements RevocationListener, IssuanceListener, OnApplicationBootstrap, OnApplicationShutdown
{
  private readonly cache: ResponseCache;
  private readonly responders = new Map<string, ResponderSlot>();
  private readonly heard = new HeardRevocations(HEARD_REVOCATIONS_MAX_BYTES, HEARD_RECHECK_MS);
  private warnedLost?: string;
  /** Whether every revocation event this replica did not hear is in the table. */
  private readonly backlog = new BacklogGate();
  /** Since when this replica hears every revocation on the fan-out (epoch ms). */
  private listeningSince = Number.POSITIVE_INFINITY;
  private backlogTimer?: NodeJS.Timeout;
  private warnedBacklog?: number;
  private readonly races = new SigningRaces();
  private readonly signed: Counter<'trigger'>;
  private readonly refreshBeforeMs: number;
  private readonly sweepIntervalMs: number;
  private sweepTimer?: NodeJS.Timeout;
  private sweeping = false;
  private stopped = false;

  constructor(
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(LOGGER) private readonly logger: CertlaneLogger,
    @Inject(CERTLANE_CONFIG) config: CertlaneConfig,
    @Inject(METRICS) metrics: Metrics,
    private readonly directory: IssuerCaDirectory,
    private readonly revocations: RevocationRepository,
    private readonly serials: IssuedSerials,
    private readonly keys: ResponderKeys,
    private readonly files: RevocationFiles,
  ) {
    this.refreshBeforeMs = config.revocation.ocspRefreshBeforeMs;
    this.sweepIntervalMs = config.revocation.ocspSweepIntervalMs;
    this.cache = new ResponseCache(config.revocation.ocspCacheMaxBytes);
    const name = 'certlane_ocsp_responses_signed_total';
    this.signed =
      (metrics.registry.getSingleMetric(name) as Counter<'trigger'> | undefined) ??
      new Counter({
        name,
        help: 'OCSP responses signed, by what caused the signature',
        labelNames: ['trigger'],
        registers: [metrics.registry],
      });
  }

  /**
   * Subscribes to the fan-out, then reads the consumer's progress: events published before are
   * not heard, so `good` waits until the consumer has recorded them (at once when it has).
   */
  async onApplicationBootstrap(): Promise<void> {
    await this.bus.subscribe(REVOKED_SUBJECT, async (envelope) => {
      const event = parseRevokedEvent(envelope.data);
      if (!('invalid' in event)) this.heardOnBus(event, envelope.id);
    });
    this.listeningSince = Date.now();
    this.bus.onReconnect(() => this.missedFanOut());
    await this.readBacklog();
    this.sweepTimer = setInterval(() => void this.sweep(), this.sweepIntervalMs);
    this.sweepTimer.unref();
  }

  onApplicationShutdown(): void {
    this.stopped = true;
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    clearTimeout(this.backlogTimer);
  }

  /**
   * The bus connection came back: revocations published while it was down were not heard. Until
   * the consumer has recorded them, `good` is not signed, and no answer cached before is served
   * (each is signed again, on request or by the sweep).
   */
  private missedFanOut(): void {
    this.backlog.close();
    this.listeningSince = Date.now();
    this.cache.expireAll(new Date());
    void this.readBacklog();
  }

  /** While the gate is closed: reads the consumer's progress, and again every OCSP_BACKLOG_POLL_MS. */
  private async readBacklog(): Promise<void> {
    clearTimeout(this.backlogTimer);
    this.backlogTimer = undefined;
    if (this.backlog.open || this.stopped) return;
    const epoch = this.backlog.epoch;
    let failure: unknown;
    try {
      const progress = await this.bus.consumerProgress(REVOKED_SUBJECT, REVOCATION_CONSUMER);
      if (epoch !== this.backlog.epoch) return; // closed again meanwhile: that closing reads on its own
      if (this.backlog.observe(progress, epoch)) {
        if (this.warnedBacklog === epoch) {
          this.logger.info({ position: progress.acknowledged }, 'OCSP: the revocations table has caught up');
        }
        return;
      }
    } catch (error) {
      if (epoch !== this.backlog.epoch) return;
      failure = error;
    }
    if (this.warnedBacklog !== epoch) {
      this.warnedBacklog = epoch;
      this.logger.warn(
        { err: failure, waiting_for: this.backlog.waitingFor },
        'OCSP: revocation events this replica did not hear may be missing from the revocations table; answering tryLater for serials it does not list until the consumer has recorded them',
      );
    }
    if (this.stopped) return;
    this.backlogTimer = setTimeout(() => void this.readBacklog(), OCSP_BACKLOG_POLL_MS);
    this.backlogTimer.unref();
  }

  /**
   * The cached answer to an exact request answered before (`requestKey`: the GET path or the POST
   * body as a string, with a prefix telling them apart), without parsing it; undefined otherwise.
   */
  cached(issuerId: string, requestKey: string): OcspAnswer | undefined {
    const entry = this.cache.lookup(issuerId, requestKey, new Date());
    return entry && { der: entry.der, times: entry };
  }

  /**
   * RFC 6960 POST body or decoded RFC 5019 GET: always an OCSP response, never an HTTP error.
   * With `requestKey` (see `cached`), a one-CertID answer that was cached is found again by `cached`.
   */
  async answer(issuerId: string, der: Buffer, requestKey?: string): Promise<OcspAnswer> {
    let request: OcspRequest;
    try {
      request = parseOcspRequest(der);
    } catch (error) {
      if (error instanceof PkiError) return { der: ocspErrorResponse('malformedRequest') };
      throw error;
    }
    const cacheable = request.certIds.length === 1 && !request.nonceExtension;
    try {
      const info = await this.directory.require(issuerId, 'ocsp');
      // One responder signs a response: every CertID must name the same CA of the issuer.
      const caId = await this.directory.route(issuerId, request.certIds[0]);
      if (caId === undefined) return { der: ocspErrorResponse('unauthorized') };
      const loaded = await this.responder(issuerId, caId);
      if (!request.certIds.every((id) => loaded.responder.serves(id))) {
        return { der: ocspErrorResponse('unauthorized') };
      }
      if (cacheable) {
        const certId = request.certIds[0];
        const answer = await this.single(issuerId, loaded, certId, 'request');
        if (requestKey !== undefined && this.cache.has(issuerId, certId.der)) {
          this.cache.remember(issuerId, requestKey, certId.der);
        }
        return answer;
      }
      const times = responseTimes(new Date(), this.refreshBeforeMs);
      const statuses = new Map<string, CertStatus>();
      for (const certId of request.certIds) {
        statuses.set(certId.serialNumber, await this.status(issuerId, caId, info.kind, certId.serialNumber));
      }
      const responseDer = await loaded.responder.respondTo(
        request,
        async (serial) => statuses.get(serial) as CertStatus,
        times,
      );
      this.signed.inc({ trigger: 'request' });
      return { der: responseDer, times };
    } catch (error) {
      const stale = cacheable ? this.staleAnswer(issuerId, request.certIds[0], error, requestKey) : undefined;
      return stale ?? { der: ocspErrorResponse(this.errorStatus(issuerId, error)) };
    }
  }

  /**
   * The response about one serial (hex) with a SHA-1 CertID, as the gateway route serves it: from
   * the CA `caId`, else the CA that issued the serial, else the issuer's issuing CA.
   */
  async forSerial(issuerId: string, serialHex: string, caId?: string): Promise<OcspAnswer> {
    const serial = canonicalSerial(serialHex);
    try {
      parseSerialHex(serial);
    } catch (error) {
      if (!(error instanceof PkiError)) throw error;
      // The route's pattern lets 0 and 21-octet values through: a client error, not ours.
      throw new CertlaneError(
        ErrorCode.ValidationFailed,
        'serial must be a positive serial number of at most 20 octets',
        { serial_hex: serialHex },
      );
    }
    const info = await this.directory.require(issuerId, 'ocsp', caId);
    let ca = caId ?? info.ca_id;
    if (caId === undefined && plausibleSerial(info.kind, serial)) {
      ca = (await this.serials.caOf(issuerId, serial)) ?? info.ca_id;
      if (!info.cas.some((known) => known.ca_id === ca)) ca = info.ca_id;
    }
    const loaded = await this.responder(issuerId, ca);
    const certId = loaded.responder.certId(serial, 'sha1');
    try {
      return await this.single(issuerId, loaded, certId, 'request');
    } catch (error) {
      const stale = this.staleAnswer(issuerId, certId, error);
      if (stale) return stale;
      throw error;
    }
  }

  /**
   * The bus fan-out (every replica, at once): the revocation counts from now, kept in memory until
   * the consumer is seen to have recorded its event, whatever the consumer's lag.
   */
  heardOnBus(event: CertificateRevoked, eventId: string): void {
    const key = serialKey(event.issuer_id, event.serial_hex);
    this.heard.heard(
      key,
      { reason: event.reason, revoked_at: new Date(event.revoked_at) },
      eventId,
      Date.now(),
    );
    this.revoked(event);
  }

  /**
   * Told by the consumer after its commit (the table holds it) and by heardOnBus: signatures about
   * the serial under way are not cached, and its cached answers are signed again, or dropped when
   * that fails (none may keep saying what the revocation changed).
   */
  revoked(event: CertificateRevoked): void {
    const serial = canonicalSerial(event.serial_hex);
    this.races.revoked(serialKey(event.issuer_id, serial));
    void this.resign(event.issuer_id, serial, 'revocation', true).catch((error: unknown) => {
      this.cache.dropSerial(event.issuer_id, serial);
      if (!(error instanceof RevocationsCatchingUp)) {
        this.logger.warn({ err: error, issuer_id: event.issuer_id }, 'OCSP re-sign after revocation failed');
      }
    });
  }

  /**
   * Told by the issued-event consumer after its commit: any response cached for this serial is
   * signed again (`unknown` answers are not cached, so a new certificate's first request signs);
   * with publication on (ADR 0038), the certificate's `good` response is signed now, so its file
   * exists before a relying party asks.
   */
  issued(event: CertificateIssued): void {
    this.directory.noteCa(event.issuer_id, event.ca_id);
    const serial = canonicalSerial(event.serial_hex);
    void this.resign(event.issuer_id, serial, 'issuance', this.files.enabled).catch((error: unknown) => {
      if (error instanceof RevocationsCatchingUp) return; // signed on request once caught up
      this.logger.warn({ err: error, issuer_id: event.issuer_id }, 'OCSP re-sign after issuance failed');
    });
  }

  private async resign(
    issuerId: string,
    serial: string,
    trigger: SigningTrigger,
    presignWhenUncached: boolean,
  ): Promise<void> {
    const cached = this.cache.forSerial(issuerId, serial);
    for (const entry of cached) {
      const slot = this.responders.get(slotKey(issuerId, entry.caId));
      if (slot) await this.sign(issuerId, await slot.loading, entry.certId, trigger);
    }
    if (cached.length > 0 || !presignWhenUncached) return;
    const caId = await this.serials.caOf(issuerId, serial).catch(() => null);
    if (!caId) return;
    const slot = this.responders.get(slotKey(issuerId, caId));
    // Published responses are signed even before the responder served a request.
    if (!slot && !this.files.enabled) return;
    const loaded = slot ? await slot.loading : await this.responder(issuerId, caId);
    await this.sign(issuerId, loaded, loaded.responder.certId(serial, 'sha1'), trigger);
  }

  private async single(
    issuerId: string,
    loaded: LoadedResponder,
    certId: CertId,
    trigger: SigningTrigger,
  ): Promise<OcspAnswer> {
    const entry =
      this.cache.get(issuerId, certId.der, new Date()) ??
      (await this.sign(issuerId, loaded, certId, trigger));
    return {
      der: entry.der,
      times: { producedAt: entry.producedAt, thisUpdate: entry.thisUpdate, nextUpdate: entry.nextUpdate },
    };
  }

  /**
   * Signs, and caches unless the answer is `unknown` (a serial never issued: anyone can ask about
   * endless many, ADR 0039); signs again if this serial was revoked (or released) meanwhile, since
   * the status may have been read before. Revocations of other serials and issuances void nothing.
   */
  private async sign(
    issuerId: string,
    loaded: LoadedResponder,
    certId: CertId,
    trigger: SigningTrigger,
  ): Promise<CachedResponse> {
    const kind = (await this.directory.get(issuerId)).kind;
    const key = serialKey(issuerId, certId.serialNumber);
    for (let attempt = 0; ; attempt++) {
      const ended = this.races.start(key);
      let status: CertStatus;
      let entry: CachedResponse;
      try {
        status = await this.status(issuerId, loaded.caId, kind, certId.serialNumber);
        const times = responseTimes(new Date(), this.refreshBeforeMs);
        const der = await loaded.responder.respond([{ certId, status }], times);
        entry = { issuerId, caId: loaded.caId, certId, der, ...times };
      } catch (error) {
        ended();
        throw error;
      }
      const raced = ended();
      this.signed.inc({ trigger });
      if (!raced) {
        // Answers about serials never issued are neither cached nor published (ADR 0039).
        if (status.status === 'unknown') return entry;
        const stored = this.cache.put(entry);
        await this.files.ocsp(issuerId, certId, stored.der);
        return stored;
      }
      if (attempt >= 2) return entry;
    }
  }

  /**
   * revoked (heard on the bus and not yet recorded by the consumer, else the table), else good only
   * when the CA the CertID names issued the serial (the issued table, then issuance itself on a
   * miss); throws when issuance cannot be asked, or when the table may lack a revocation this
   * replica did not hear or dropped (RevocationsCatchingUp: the caller answers tryLater).
   */
  private async status(issuerId: string, caId: string, kind: string, serialHex: string): Promise<CertStatus> {
    const serial = canonicalSerial(serialHex);
    let revocation = await this.knownRevocation(issuerId, serial);
    // RFC 6960 2.2: `revoked` about a serial this CA never issued needs the extended revoked
    // definition; a local CA's serial revoked under another CA of the issuer is `unknown` here.
    if (
      kind === 'local_ca' &&
      revocation &&
      'ca_id' in revocation &&
      revocation.ca_id &&
      revocation.ca_id !== caId
    )
      revocation = undefined;
    let issuedByCa: IssuedByCa;
    const revoked = revocation !== undefined && revocation.reason !== 'removeFromCRL';
    if (!revoked) await this.requireEveryRevocationKnown();
    if (kind === 'local_ca' && !revoked && plausibleSerial(kind, serial)) {
      issuedByCa = (await this.serials.caOf(issuerId, serial)) === caId;
    }
    return certStatusFor(kind, serial, revocation, issuedByCa);
  }

  /**
   * The revocation heard on the bus until the consumer has recorded that event (its inbox holds
   * the id, asked at most every HEARD_RECHECK_MS per serial), else the table's row.
   */
  private async knownRevocation(
    issuerId: string,
    serial: string,
  ): Promise<(KnownRevocation & { ca_id?: string | null }) | undefined> {
    const key = serialKey(issuerId, serial);
    const now = Date.now();
    const heard = this.heard.get(key);
    if (!heard) return this.revocations.find(issuerId, serial);
    if (!this.heard.due(key, now)) return heard;
    // The inbox first: a row read after the event was recorded reflects it.
    const consumed = await this.revocations.consumed(REVOCATION_CONSUMER, heard.eventId);
    const row = consumed ? await this.revocations.find(issuerId, serial) : undefined;
    return this.heard.settle(key, heard.eventId, consumed, row, now);
  }

  /**
   * Throws while the table may lack a revocation this replica did not hear (after a start or a
   * reconnect, until the consumer has recorded what was published before) or heard and dropped
   * (its memory bound, until the consumer has recorded the newest such event): the serial asked
   * about could be it, so it is not answered `good`.
   */
  private async requireEveryRevocationKnown(): Promise<void> {
    if (!this.backlog.open) {
      throw new RevocationsCatchingUp(
        'the revocations table may lack revocation events this replica did not hear',
      );
    }
    await this.requireNoLostRevocation();
  }

  private async requireNoLostRevocation(): Promise<void> {
    const lost = this.heard.lostEvent;
    if (lost === undefined) return;
    if (await this.revocations.consumed(REVOCATION_CONSUMER, lost)) {
      this.heard.caughtUp(lost);
      return;
    }
    if (this.warnedLost !== lost) {
      this.warnedLost = lost;
      this.logger.warn(
        { event_id: lost, heard: this.heard.size },
        'OCSP: more revocations heard than kept while the revocations table catches up; answering tryLater for serials it does not list yet',
      );
    }
    throw new RevocationsCatchingUp(
      'the revocations table is catching up with revocations this replica could not keep',
    );
  }

  /** Asks the consumer's inbox about the heard revocations due for a check, in one statement. */
  private async settleHeard(now: number): Promise<void> {
    const due = this.heard
      .dueKeys(now, HEARD_SETTLE_BATCH)
      .map((key) => ({ key, eventId: (this.heard.get(key) as HeardRevocation).eventId }));
    if (due.length > 0) {
      const recorded = new Set(
        await this.revocations.consumedMany(
          REVOCATION_CONSUMER,
          due.map((entry) => entry.eventId),
        ),
      );
      for (const { key, eventId } of due)
        this.heard.settle(key, eventId, recorded.has(eventId), undefined, now);
    }
    await this.requireNoLostRevocation().catch(() => undefined);
  }

  private responder(issuerId: string, caId: string): Promise<LoadedResponder> {
    const slot = this.responders.get(slotKey(issuerId, caId));
    if (slot) {
      return slot.loading.then((loaded) =>
        loaded.renewAt.getTime() > Date.now() ? loaded : this.reload(issuerId, caId, slot),
      );
    }
    return this.reload(issuerId, caId);
  }

  /** Loads (or renews) a CA's responder; concurrent callers of one renewal share it. */
  private reload(issuerId: string, caId: string, expired?: ResponderSlot): Promise<LoadedResponder> {
    const key = slotKey(issuerId, caId);
    const current = this.responders.get(key);
    if (expired && current && current !== expired) return current.loading;
    const loading = this.directory.require(issuerId, 'ocsp', caId).then((ca) => this.keys.load(ca));
    const slot: ResponderSlot = { issuerId, loading };
    this.responders.set(key, slot);
    loading.then(
      (loaded) => {
        slot.loaded = loaded;
        this.cache.dropIssuer(issuerId, caId);
        void this.presign(issuerId, loaded);
      },
      () => {
        if (this.responders.get(key) === slot) this.responders.delete(key);
      },
    );
    return loading;
  }

  /** Pre-signs the (SHA-1 CertID) response of every revoked serial of a newly loaded responder's CA. */
  private async presign(issuerId: string, loaded: LoadedResponder): Promise<void> {
    try {
      const rows = await this.revocations.listForCa(issuerId, loaded.caId);
      for (const row of rows.slice(0, PRESIGN_MAX)) {
        if (this.responders.get(slotKey(issuerId, loaded.caId))?.loaded !== loaded) return;
        if (this.cache.bytes >= this.cache.maxBytes * PRESIGN_CACHE_SHARE) return;
        await this.single(issuerId, loaded, loaded.responder.certId(row.serial_hex, 'sha1'), 'presign');
      }
    } catch (error) {
      this.logger.warn({ err: error, issuer_id: issuerId, ca_id: loaded.caId }, 'OCSP pre-signing failed');
    }
  }

  /** unauthorized for an issuer this service does not answer for, tryLater for a transient failure. */
  private errorStatus(issuerId: string, error: unknown): OcspErrorStatus {
    if (error instanceof CertlaneError) {
      if (error.code === ErrorCode.NotImplemented || httpStatusFor(error.code) === 404) return 'unauthorized';
    }
    // Catching up is logged once per episode (readBacklog, requireNoLostRevocation).
    if (!(error instanceof RevocationsCatchingUp)) {
      this.logger.warn({ err: error, issuer_id: issuerId }, 'OCSP responder unavailable');
    }
    return 'tryLater';
  }

  /** Whether a failure is an outage (Postgres, issuance or the bus), not a refusal or a gap in what is known. */
  private isOutage(error: unknown): boolean {
    if (error instanceof RevocationsCatchingUp) return false;
    if (error instanceof CertlaneError) {
      return error.code !== ErrorCode.NotImplemented && httpStatusFor(error.code) >= 500;
    }
    return true;
  }

  /**
   * Keeps serving a cached response past its refresh time that could not be signed again, when
   * staleAnswerUntil allows it: by `get` and the fast lane until the next attempt. False otherwise.
   */
  private keepServing(entry: CachedResponse, error: unknown, now: number): boolean {
    const until = staleAnswerUntil({
      now,
      signedAt: entry.thisUpdate.getTime(),
      nextUpdate: entry.nextUpdate.getTime(),
      outage: this.isOutage(error),
      listeningSince: this.listeningSince,
      backlog: !this.backlog.open,
      heardUnrecorded: this.heard.get(serialKey(entry.issuerId, entry.certId.serialNumber)) !== undefined,
    });
    if (until === undefined) return false;
    this.cache.postpone(entry, new Date(until));
    return true;
  }

  /** The cached response about `certId` served instead of tryLater after `error` (keepServing), if any. */
  private staleAnswer(
    issuerId: string,
    certId: CertId,
    error: unknown,
    requestKey?: string,
  ): OcspAnswer | undefined {
    const entry = this.cache.peek(issuerId, certId.der);
    if (!entry || !this.keepServing(entry, error, Date.now())) return undefined;
    if (requestKey !== undefined) this.cache.remember(issuerId, requestKey, certId.der);
    return {
      der: entry.der,
      times: { producedAt: entry.producedAt, thisUpdate: entry.thisUpdate, nextUpdate: entry.nextUpdate },
    };
  }

  /**
   * The timer: renews the responders due for renewal (before their certificate expires) and
   * re-signs the cached responses due for refresh (before their nextUpdate).
   */
  async sweep(): Promise<void> {
    if (this.sweeping) return;
    this.sweeping = true;
    const now = new Date();
    try {
      await this.settleHeard(now.getTime()).catch((error: unknown) =>
        this.logger.warn(
          { err: error },
          'OCSP: checking heard revocations against the inbox failed; will retry',
        ),
      );
      for (const slot of [...this.responders.values()]) {
        const loaded = slot.loaded;
        if (!loaded || loaded.renewAt.getTime() > now.getTime()) continue;
        await this.reload(slot.issuerId, loaded.caId, slot).catch((error: unknown) =>
          this.logger.warn(
            { err: error, issuer_id: slot.issuerId, ca_id: loaded.caId },
            'OCSP responder renewal failed',
          ),
        );
      }
      await this.refreshDue(now);
    } catch (error) {
      this.logger.warn({ err: error }, 'OCSP refresh failed; will retry');
    } finally {
      this.sweeping = false;
    }
  }

  /**
   * Re-signs the cached responses due for refresh. What stops one stops the rest (Postgres or
   * issuance unreachable, a backlog): those still valid are served on while it is an outage
   * (keepServing), and the next sweep tries again.
   */
  private async refreshDue(now: Date): Promise<void> {
    const due = this.cache.due(now);
    for (const [index, entry] of due.entries()) {
      try {
        const loaded = await this.responder(entry.issuerId, entry.caId);
        await this.sign(entry.issuerId, loaded, entry.certId, 'sweep');
      } catch (error) {
        let kept = 0;
        for (const rest of due.slice(index)) if (this.keepServing(rest, error, now.getTime())) kept++;
        if (!(error instanceof RevocationsCatchingUp)) {
          this.logger.warn(
            { err: error, due: due.length - index, kept },
            'OCSP refresh failed; cached responses still valid are served until they can be signed again',
          );
        }
        return;
      }
    }
  }
}
