import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { CertificateRevoked, CertlaneError, ErrorCode } from '@certlane/contracts';
import { CertlaneLogger, httpStatusFor, LOGGER, MESSAGE_BUS, MessageBus } from '@certlane/platform';
import {
  CertId,
  CertStatus,
  ocspErrorResponse,
  OcspErrorStatus,
  OcspRequest,
  parseOcspRequest,
  PkiError,
} from '@certlane/pki';
import { IssuerCaDirectory } from '../issuer-ca.directory';
import { RevocationListener } from '../revocations/revocation-consumer';
import { RevocationRepository } from '../revocations/revocation.repository';
import { canonicalSerial, parseRevokedEvent } from '../revocations/revoked-event';
import { certStatusFor, KnownRevocation } from './cert-status';
import { LoadedResponder, ResponderKeys } from './responder-keys';
import { CachedResponse, ResponseCache, responseTimes } from './response-cache';

/** How often cached responses due for refresh are re-signed and responders due for renewal renewed. */
export const OCSP_SWEEP_INTERVAL_MS = 30_000;
/** Revocations seen on the bus are trusted from memory this long (until every replica's table has them). */
const RECENT_REVOCATION_MS = 10 * 60_000;
/** Revoked serials pre-signed when a responder is loaded (the rest are signed on first request). */
const PRESIGN_MAX = 50_000;

/** An OCSP answer: a signed response (with its times, for cache headers) or an unsigned error. */
export interface OcspAnswer {
  der: Buffer;
  times?: { producedAt: Date; thisUpdate: Date; nextUpdate: Date };
}

/**
 * The OCSP responder of every issuer. Responses about one certificate without a nonce (every GET
 * and most POSTs) are pre-signed and cached per CertID, re-signed half-way through their one-hour
 * validity and at once when the certificate is revoked; every replica hears revocations on the
 * bus (fan-out), so none keeps serving `good` for a revoked certificate.
 */
@Injectable()
export class OcspService implements RevocationListener, OnApplicationBootstrap, OnApplicationShutdown {
  private readonly cache = new ResponseCache();
  private readonly responders = new Map<string, Promise<LoadedResponder>>();
  private readonly recent = new Map<string, KnownRevocation & { until: number }>();
  private generation = 0;
  private sweepTimer?: NodeJS.Timeout;

  constructor(
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(LOGGER) private readonly logger: CertlaneLogger,
    private readonly directory: IssuerCaDirectory,
    private readonly revocations: RevocationRepository,
    private readonly keys: ResponderKeys,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.bus.subscribe('issuance.v1.certificate.revoked', async (envelope) => {
      const event = parseRevokedEvent(envelope.data);
      if (!('invalid' in event)) this.revoked(event);
    });
    this.sweepTimer = setInterval(() => void this.sweep(), OCSP_SWEEP_INTERVAL_MS);
    this.sweepTimer.unref();
  }

  onApplicationShutdown(): void {
    if (this.sweepTimer) clearInterval(this.sweepTimer);
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
   * With `requestKey` (see `cached`), a one-CertID answer is found again by `cached`.
   */
  async answer(issuerId: string, der: Buffer, requestKey?: string): Promise<OcspAnswer> {
    let request: OcspRequest;
    try {
      request = parseOcspRequest(der);
    } catch (error) {
      if (error instanceof PkiError) return { der: ocspErrorResponse('malformedRequest') };
      throw error;
    }
    let loaded: LoadedResponder;
    try {
      loaded = await this.responder(issuerId);
    } catch (error) {
      return { der: ocspErrorResponse(this.errorStatus(issuerId, error)) };
    }
    if (!request.certIds.every((id) => loaded.responder.serves(id))) {
      return { der: ocspErrorResponse('unauthorized') };
    }
    if (request.certIds.length === 1 && !request.nonceExtension) {
      const answer = await this.single(issuerId, loaded, request.certIds[0]);
      if (requestKey !== undefined) this.cache.remember(issuerId, requestKey, request.certIds[0].der);
      return answer;
    }
    const kind = (await this.directory.get(issuerId)).kind;
    const times = responseTimes(new Date());
    const responseDer = await loaded.responder.respondTo(
      request,
      (serial) => this.status(issuerId, kind, serial),
      times,
    );
    return { der: responseDer, times };
  }

  /** The response about one serial (hex) with a SHA-1 CertID, as the gateway route serves it. */
  async forSerial(issuerId: string, serialHex: string): Promise<OcspAnswer> {
    const loaded = await this.responder(issuerId);
    return this.single(issuerId, loaded, loaded.responder.certId(canonicalSerial(serialHex), 'sha1'));
  }

  /** Told by the consumer (after its commit) and by the bus fan-out (every replica). */
  revoked(event: CertificateRevoked): void {
    const serial = canonicalSerial(event.serial_hex);
    this.recent.set(`${event.issuer_id} ${serial}`, {
      reason: event.reason,
      revoked_at: new Date(event.revoked_at),
      until: Date.now() + RECENT_REVOCATION_MS,
    });
    this.generation++;
    void this.resign(event.issuer_id, serial).catch((error: unknown) =>
      this.logger.warn({ err: error, issuer_id: event.issuer_id }, 'OCSP re-sign after revocation failed'),
    );
  }

  private async resign(issuerId: string, serial: string): Promise<void> {
    const cached = this.cache.forSerial(issuerId, serial);
    const loaded = this.responders.has(issuerId) ? await this.responder(issuerId) : undefined;
    if (!loaded) return;
    const certIds = cached.length ? cached.map((c) => c.certId) : [loaded.responder.certId(serial, 'sha1')];
    for (const certId of certIds) await this.sign(issuerId, loaded, certId);
  }

  private async single(issuerId: string, loaded: LoadedResponder, certId: CertId): Promise<OcspAnswer> {
    const entry =
      this.cache.get(issuerId, certId.der, new Date()) ?? (await this.sign(issuerId, loaded, certId));
    return {
      der: entry.der,
      times: { producedAt: entry.producedAt, thisUpdate: entry.thisUpdate, nextUpdate: entry.nextUpdate },
    };
  }

  /** Signs and caches; signs again if a revocation arrived meanwhile (it may be about this serial). */
  private async sign(issuerId: string, loaded: LoadedResponder, certId: CertId): Promise<CachedResponse> {
    const kind = (await this.directory.get(issuerId)).kind;
    for (let attempt = 0; ; attempt++) {
      const generation = this.generation;
      const status = await this.status(issuerId, kind, certId.serialNumber);
      const times = responseTimes(new Date());
      const der = await loaded.responder.respond([{ certId, status }], times);
      const entry: CachedResponse = { issuerId, certId, der, ...times };
      if (generation === this.generation) {
        this.cache.put(entry);
        return entry;
      }
      if (attempt >= 2) return entry;
    }
  }

  private async status(issuerId: string, kind: string, serialHex: string): Promise<CertStatus> {
    const serial = canonicalSerial(serialHex);
    const key = `${issuerId} ${serial}`;
    const recent = this.recent.get(key);
    if (recent && recent.until > Date.now()) return certStatusFor(kind, serial, recent);
    const row = await this.revocations.find(issuerId, serial);
    return certStatusFor(kind, serial, row);
  }

  private responder(issuerId: string): Promise<LoadedResponder> {
    const existing = this.responders.get(issuerId);
    if (existing) {
      return existing.then((loaded) =>
        loaded.renewAt.getTime() > Date.now() ? loaded : this.reload(issuerId),
      );
    }
    return this.reload(issuerId);
  }

  private reload(issuerId: string): Promise<LoadedResponder> {
    const loading = this.directory.require(issuerId, 'ocsp').then((ca) => this.keys.load(ca));
    this.responders.set(issuerId, loading);
    loading.then(
      (loaded) => {
        this.cache.dropIssuer(issuerId);
        void this.presign(issuerId, loaded);
      },
      () => {
        if (this.responders.get(issuerId) === loading) this.responders.delete(issuerId);
      },
    );
    return loading;
  }

  /** Pre-signs the (SHA-1 CertID) response of every revoked serial of a newly loaded responder. */
  private async presign(issuerId: string, loaded: LoadedResponder): Promise<void> {
    try {
      const rows = await this.revocations.listForIssuer(issuerId);
      for (const row of rows.slice(0, PRESIGN_MAX)) {
        if (this.responders.get(issuerId) === undefined) return;
        await this.single(issuerId, loaded, loaded.responder.certId(row.serial_hex, 'sha1'));
      }
    } catch (error) {
      this.logger.warn({ err: error, issuer_id: issuerId }, 'OCSP pre-signing failed');
    }
  }

  /** unauthorized for an issuer this service does not answer for, tryLater for a transient failure. */
  private errorStatus(issuerId: string, error: unknown): OcspErrorStatus {
    if (error instanceof CertlaneError) {
      if (error.code === ErrorCode.NotImplemented || httpStatusFor(error.code) === 404) return 'unauthorized';
    }
    this.logger.warn({ err: error, issuer_id: issuerId }, 'OCSP responder unavailable');
    return 'tryLater';
  }

  private async sweep(): Promise<void> {
    const now = new Date();
    for (const [key, recent] of this.recent) if (recent.until <= now.getTime()) this.recent.delete(key);
    try {
      for (const entry of this.cache.due(now)) {
        const loaded = await this.responder(entry.issuerId);
        await this.sign(entry.issuerId, loaded, entry.certId);
      }
    } catch (error) {
      this.logger.warn({ err: error }, 'OCSP refresh failed; will retry');
    }
  }
}
