import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { CertificateIssued, CertificateRevoked } from '@certlane/contracts';
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
import { CRL_DEBOUNCE_MS, CRL_VALIDITY, KeyedDebouncer, nextCrlNumber } from './crl-schedule';
import { CrlRepository, CrlState } from './crl.repository';
import { RemoteCaSigner } from './remote-ca-signer';

/** Revocations whose CA is resolved per sweep (those stored while issuance was unreachable). */
const RESOLVE_BATCH = 100;

const keyOf = (issuerId: string, caId: string) => `${issuerId}\n${caId}`;

/**
 * Publishes one CRL per CA of an issuer (ADR 0023), retired CAs included: built with libs/pki,
 * signed by that CA through `RemoteCaSigner`, stored with a strictly increasing number. Rebuilt
 * ~100 ms after a revocation commits (coalesced), once its nextUpdate is within
 * SERVICE_CRL_REFRESH_BEFORE (the sweep, every SERVICE_CRL_SWEEP_INTERVAL), and at start for what
 * was missed. With SERVICE_REVOCATION_PUBLISH_DIR, every CRL built is also written as a file
 * (ADR 0038), the first CRL of a CA is built as soon as it issues (a static server cannot ask for
 * one), and the stored CRLs are written again at start.
 */
@Injectable()
export class CrlPublisher
  implements RevocationListener, IssuanceListener, OnApplicationBootstrap, OnApplicationShutdown
{
  private readonly debouncer: KeyedDebouncer<string>;
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
    if (this.files.enabled) void this.republish();
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

  /** Writes every stored CRL still valid to the publication store (the directory may be new). */
  private async republish(): Promise<void> {
    try {
      for (const state of await this.repository.valid(new Date())) {
        await this.files.crl(state.issuer_id, state.ca_id, state.der);
      }
    } catch (error) {
      this.logger.warn({ err: error }, 'republishing the stored CRLs failed');
    }
  }

  /**
   * The current CRL of a CA of an issuer (without `caId`: its issuing CA), built now if there is
   * none yet or it has expired.
   */
  async current(issuerId: string, caId?: string): Promise<CrlState> {
    const ca = await this.directory.require(issuerId, 'crl', caId);
    const state = await this.repository.find(issuerId, ca.ca_id);
    if (state && state.next_update.getTime() > Date.now()) return state;
    return this.rebuild(issuerId, ca.ca_id);
  }

  /** Builds, signs and stores the next CRL of a CA of an issuer. */
  async rebuild(issuerId: string, caId: string): Promise<CrlState> {
    const ca = await this.directory.require(issuerId, 'crl', caId);
    const issuer = new CrlIssuer({
      certificate: ca.ca_certificate_pem,
      signer: new RemoteCaSigner(this.bus, ca),
    });
    const state = await this.repository.rebuild(issuerId, caId, async (previous, entries) => {
      const crlNumber = nextCrlNumber(previous);
      const thisUpdate = new Date(Math.floor(Date.now() / 1000) * 1000);
      const nextUpdate = new Date(thisUpdate.getTime() + CRL_VALIDITY);
      const der = await issuer.build({ crlNumber, thisUpdate, nextUpdate, entries });
      return { crl_number: crlNumber, this_update: thisUpdate, next_update: nextUpdate, der };
    });
    await this.files.crl(issuerId, caId, state.der);
    this.logger.info(
      { issuer_id: issuerId, ca_id: caId, crl_number: state.crl_number.toString() },
      'CRL published',
    );
    return state;
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
  }
}
