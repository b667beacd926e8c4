import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { CertificateRevoked } from '@certlane/contracts';
import { CertlaneLogger, LOGGER, MESSAGE_BUS, MessageBus } from '@certlane/platform';
import { CrlIssuer } from '@certlane/pki';
import { RevocationListener } from '../revocations/revocation-consumer';
import { IssuerCaDirectory } from '../issuer-ca.directory';
import { CRL_DEBOUNCE_MS, CRL_VALIDITY, KeyedDebouncer, nextCrlNumber } from './crl-schedule';
import { CrlRepository, CrlState } from './crl.repository';
import { RemoteCaSigner } from './remote-ca-signer';

/** How often the service looks for CRLs due for a rebuild (half-life reached, revocation missed). */
export const CRL_SWEEP_INTERVAL_MS = 60_000;

/**
 * Publishes one CRL per issuer: built with libs/pki, signed by the issuing CA through
 * `RemoteCaSigner`, stored with a strictly increasing number. Rebuilt ~100 ms after a revocation
 * commits (coalesced), half-way through its 24 h validity, and at start for what was missed.
 */
@Injectable()
export class CrlPublisher implements RevocationListener, OnApplicationBootstrap, OnApplicationShutdown {
  private readonly debouncer: KeyedDebouncer<string>;
  private sweepTimer?: NodeJS.Timeout;

  constructor(
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(LOGGER) private readonly logger: CertlaneLogger,
    private readonly directory: IssuerCaDirectory,
    private readonly repository: CrlRepository,
  ) {
    this.debouncer = new KeyedDebouncer(
      async (issuerId) => {
        await this.rebuild(issuerId);
      },
      CRL_DEBOUNCE_MS,
      (issuerId, error) =>
        this.logger.warn({ err: error, issuer_id: issuerId }, 'CRL rebuild failed; will retry'),
    );
  }

  onApplicationBootstrap(): void {
    void this.sweep();
    this.sweepTimer = setInterval(() => void this.sweep(), CRL_SWEEP_INTERVAL_MS);
    this.sweepTimer.unref();
  }

  onApplicationShutdown(): void {
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    this.debouncer.close();
  }

  revoked(event: CertificateRevoked): void {
    this.debouncer.request(event.issuer_id);
  }

  /** The current CRL of an issuer, built now if there is none yet or it has expired. */
  async current(issuerId: string): Promise<CrlState> {
    await this.directory.require(issuerId, 'crl');
    const state = await this.repository.find(issuerId);
    if (state && state.next_update.getTime() > Date.now()) return state;
    return this.rebuild(issuerId);
  }

  /** Builds, signs and stores the next CRL of an issuer. */
  async rebuild(issuerId: string): Promise<CrlState> {
    const ca = await this.directory.require(issuerId, 'crl');
    const issuer = new CrlIssuer({
      certificate: ca.ca_certificate_pem,
      signer: new RemoteCaSigner(this.bus, ca),
    });
    const state = await this.repository.rebuild(issuerId, async (previous, entries) => {
      const crlNumber = nextCrlNumber(previous);
      const thisUpdate = new Date(Math.floor(Date.now() / 1000) * 1000);
      const nextUpdate = new Date(thisUpdate.getTime() + CRL_VALIDITY);
      const der = await issuer.build({ crlNumber, thisUpdate, nextUpdate, entries });
      return { crl_number: crlNumber, this_update: thisUpdate, next_update: nextUpdate, der };
    });
    this.logger.info({ issuer_id: issuerId, crl_number: state.crl_number.toString() }, 'CRL published');
    return state;
  }

  private async sweep(): Promise<void> {
    try {
      for (const issuerId of await this.repository.due(new Date())) this.debouncer.request(issuerId);
    } catch (error) {
      this.logger.warn({ err: error }, 'CRL sweep failed');
    }
  }
}
