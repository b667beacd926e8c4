import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { CertificateIssued, CertificateRevoked, CertlaneError, ErrorCode } from '@certlane/contracts';
import {
  CERTLANE_CONFIG,
  CertlaneConfig,
  CertlaneLogger,
  LOGGER,
  MESSAGE_BUS,
  MessageBus,
} from '@certlane/platform';
import { CrlIssuer } from '@certlane/pki';
import { IssuanceListener } from '../issued/issued-consumer';
import { IssuedSerials } from '../issued/issued-serials';
import { RevocationFiles } from '../publication/revocation-files';
import { RevocationListener } from '../revocations/revocation-consumer';
import { RevocationRepository } from '../revocations/revocation.repository';
import { IssuerCaDirectory } from '../issuer-ca.directory';
import { DirectoryPublicationStore } from '../publication/publication-store';
import { CRL_DEBOUNCE_MS, crlIsValid, crlTimes, KeyedDebouncer } from './crl-schedule';
import { CrlFileWriter } from './crl-files';
import { crlPartCount, crlPartRange, CRL_PART_BYTES } from './crl-parts';
import { CrlRepository, CrlState } from './crl.repository';
import { RemoteCaSigner } from './remote-ca-signer';
import { SingleFlight } from './single-flight';

/** Revocations whose CA is resolved per sweep (those stored while issuance was unreachable). */
const RESOLVE_BATCH = 100;

const keyOf = (issuerId: string, caId: string) => `${issuerId}\n${caId}`;

/** One part of a CA's current CRL, as revocation.v1.get-crl sends it when asked for parts. */
export interface CrlPart {
  state: Omit<CrlState, 'der'>;
  part: number;
  parts: number;
  bytes: Buffer;
}

/**
 * Publishes one CRL per CA of an issuer (ADR 0023), retired CAs included: built with libs/pki,
 * signed by that CA through `RemoteCaSigner`, stored with a number that strictly increases across
 * all CAs of the issuer. Rebuilt ~100 ms after a revocation commits (coalesced), and by the sweep
 * (every SERVICE_CRL_SWEEP_INTERVAL) once its nextUpdate is within SERVICE_CRL_REFRESH_BEFORE or
 * its CA's revocations changed since it was built (crl_changes, also what a failed or missed
 * rebuild leaves). A build reserves its number and reads its entries in a short transaction, then
 * signs with no connection held, then stores unless a newer CRL is stored (ADR 0021 amendment);
 * concurrent on-demand builds of one CA in this process share one build. With
 * SERVICE_REVOCATION_PUBLISH_DIR, every CRL built is also written as a file (ADR 0038), never over a
 * newer one, the first CRL of a CA is built as soon as it issues (a static server cannot ask for
 * one), and each sweep writes the stored CRLs this process has not written (at start: all).
 */
@Injectable()
export class CrlPublisher
  implements RevocationListener, IssuanceListener, OnApplicationBootstrap, OnApplicationShutdown
{
  private readonly debouncer: KeyedDebouncer<string>;
  private readonly onDemand = new SingleFlight<string, CrlState>();
  private readonly crlFiles: CrlFileWriter;
  private readonly sweepIntervalMs: number;
  private readonly refreshBeforeMs: number;
  private sweepTimer?: NodeJS.Timeout;

  constructor(
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(LOGGER) private readonly logger: CertlaneLogger,
    @Inject(CERTLANE_CONFIG) config: CertlaneConfig,
    private readonly directory: IssuerCaDirectory,
    private readonly repository: CrlRepository,
    private readonly revocations: RevocationRepository,
    private readonly serials: IssuedSerials,
    private readonly files: RevocationFiles,
  ) {
    this.sweepIntervalMs = config.revocation.crlSweepIntervalMs;
    this.refreshBeforeMs = config.revocation.crlRefreshBeforeMs;
    const publishDir = config.revocation.publishDir;
    this.crlFiles = new CrlFileWriter(publishDir ? new DirectoryPublicationStore(publishDir) : undefined);
    this.debouncer = new KeyedDebouncer(
      async (key) => {
        const [issuerId, caId] = key.split('\n');
        await this.rebuild(issuerId, caId);
      },
      CRL_DEBOUNCE_MS,
      (key, error) =>
        this.logger.warn({ err: error, issuer_id: key.split('\n')[0] }, 'CRL rebuild failed; will retry'),
    );
  }

  onApplicationBootstrap(): void {
    void this.sweep();
    this.sweepTimer = setInterval(() => void this.sweep(), this.sweepIntervalMs);
    this.sweepTimer.unref();
  }

  onApplicationShutdown(): void {
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    this.debouncer.close();
  }

  revoked(event: CertificateRevoked, caId?: string | null): void {
    if (caId) this.debouncer.request(keyOf(event.issuer_id, caId));
  }

  /** Told by the issued-event consumer: with publication on, a CA's first CRL is built at once. */
  issued(event: CertificateIssued): void {
    if (!this.files.enabled) return;
    void this.repository.find(event.issuer_id, event.ca_id).then(
      (state) => {
        if (!state) this.debouncer.request(keyOf(event.issuer_id, event.ca_id));
      },
      (error: unknown) =>
        this.logger.warn({ err: error, issuer_id: event.issuer_id }, 'CRL state not read after issuance'),
    );
  }

  /**
   * Writes the stored CRLs still valid whose file this process has not written at that number (at
   * start: all of them; later: those other replicas built, or whose write failed), review L5.
   */
  async reconcileFiles(now = new Date()): Promise<void> {
    if (!this.crlFiles.enabled) return;
    try {
      for (const behind of this.crlFiles.behind(await this.repository.validNumbers(now))) {
        const state = await this.repository.find(behind.issuer_id, behind.ca_id);
        if (state) await this.writeFile(state);
      }
    } catch (error) {
      this.logger.warn({ err: error }, 'writing the stored CRLs failed; will retry');
    }
  }

  /**
   * The current CRL of a CA of an issuer (without `caId`: its issuing CA), built now if there is
   * none yet or it has expired. Concurrent requests for one CA share one build; the build checks
   * again under the issuer's lock and answers a CRL another replica stored meanwhile (review M1).
   */
  async current(issuerId: string, caId?: string): Promise<CrlState> {
    const ca = await this.directory.require(issuerId, 'crl', caId);
    const state = await this.repository.find(issuerId, ca.ca_id);
    if (crlIsValid(state, Date.now())) return state!;
    return this.onDemand.run(keyOf(issuerId, ca.ca_id), () => this.build(issuerId, ca.ca_id, new Date()));
  }

  /**
   * Part `part` (0-based) of a CA's current CRL, at most CRL_PART_BYTES (review H2): part 0 is
   * `current()` (built if needed); a later part is read from the stored CRL as it is now, so when
   * a new CRL was stored between two parts the caller sees another number and starts again.
   */
  async currentPart(issuerId: string, caId: string | undefined, part: number): Promise<CrlPart> {
    if (part === 0) {
      const { der, ...state } = await this.current(issuerId, caId);
      const { offset, length } = crlPartRange(0, der.length);
      return { state, part, parts: crlPartCount(der.length), bytes: der.subarray(offset, offset + length) };
    }
    const ca = await this.directory.require(issuerId, 'crl', caId);
    const found = await this.repository.part(issuerId, ca.ca_id, part * CRL_PART_BYTES, CRL_PART_BYTES);
    if (!found) throw new CertlaneError(ErrorCode.Internal, `no CRL is stored for ${issuerId} ${ca.ca_id}`);
    return { state: found.state, part, parts: crlPartCount(found.totalBytes), bytes: found.bytes };
  }

  /** Builds, signs and stores the next CRL of a CA of an issuer. */
  rebuild(issuerId: string, caId: string): Promise<CrlState> {
    return this.build(issuerId, caId);
  }

  /**
   * A build: reserve the number and read the entries (a short transaction under the issuer's
   * lock; with `unlessValidAt`, a CRL stored meanwhile and still valid then is answered instead),
   * sign through issuance with no connection held, store unless a newer CRL is stored, write the
   * file of what is stored.
   */
  private async build(issuerId: string, caId: string, unlessValidAt?: Date): Promise<CrlState> {
    const ca = await this.directory.require(issuerId, 'crl', caId);
    const issuer = new CrlIssuer({
      certificate: ca.ca_certificate_pem,
      signer: new RemoteCaSigner(this.bus, ca),
    });
    const prepared = await this.repository.prepare(issuerId, caId, unlessValidAt);
    if ('current' in prepared) return prepared.current;
    const { plan } = prepared;
    const { thisUpdate, nextUpdate } = crlTimes(Date.now());
    const der = await issuer.build({
      crlNumber: plan.crl_number,
      thisUpdate,
      nextUpdate,
      entries: plan.entries,
    });
    const state = await this.repository.store(
      issuerId,
      caId,
      { crl_number: plan.crl_number, this_update: thisUpdate, next_update: nextUpdate, der },
      plan.revision,
    );
    await this.writeFile(state);
    this.logger.info(
      { issuer_id: issuerId, ca_id: caId, crl_number: state.crl_number.toString() },
      'CRL published',
    );
    return state;
  }

  private async writeFile(state: CrlState): Promise<void> {
    try {
      await this.crlFiles.write(state);
    } catch (error) {
      this.logger.warn(
        { err: error, issuer_id: state.issuer_id },
        'publishing a CRL file failed; will retry',
      );
    }
  }

  /** The timer: resolves the CA of revocations stored without one, then rebuilds the CRLs due. */
  async sweep(): Promise<void> {
    try {
      for (const row of await this.revocations.unresolved(RESOLVE_BATCH)) {
        const caId = await this.serials.caOf(row.issuer_id, row.serial_hex);
        await this.revocations.resolveCa(row.issuer_id, row.serial_hex, caId ?? '');
      }
    } catch (error) {
      this.logger.warn({ err: error }, 'CA of revoked serials not resolved; will retry');
    }
    try {
      for (const due of await this.repository.due(new Date(), this.refreshBeforeMs)) {
        this.debouncer.request(keyOf(due.issuer_id, due.ca_id));
      }
    } catch (error) {
      this.logger.warn({ err: error }, 'CRL sweep failed');
    }
    await this.reconcileFiles();
  }
}
