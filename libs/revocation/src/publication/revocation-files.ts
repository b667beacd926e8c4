import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { CERTLANE_CONFIG, CertlaneConfig, CertlaneLogger, LOGGER } from '@certlane/platform';
import { CertId } from '@certlane/pki';
import { OCSP_RESPONSE_VALIDITY_MS } from './ocsp-validity';
import { DirectoryPublicationStore, PublicationStore } from './publication-store';
import { crlKey, ocspKey } from './published-keys';

/** How often OCSP files that stopped being re-signed are removed. */
const STALE_SWEEP_MS = 10 * 60_000;

/**
 * Publishes what relying parties fetch over plain http (ADR 0038): every CRL the service signs,
 * and every RFC 5019 response it signs about one SHA-1 CertID, as files in the store of
 * SERVICE_REVOCATION_PUBLISH_DIR for a static web server. OCSP files are rewritten each time the
 * response is re-signed (well before it expires); a file not rewritten for a response's validity
 * (its certificate no longer cached) has expired and is removed, which bounds the set to the
 * responses of the last hour. A failed write is logged; the https answers do not depend on it.
 */
@Injectable()
export class RevocationFiles implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly store?: PublicationStore;
  private timer?: NodeJS.Timeout;

  constructor(
    @Inject(CERTLANE_CONFIG) config: CertlaneConfig,
    @Inject(LOGGER) private readonly logger: CertlaneLogger,
  ) {
    const dir = config.revocation.publishDir;
    this.store = dir ? new DirectoryPublicationStore(dir) : undefined;
  }

  /** True when a publication directory is configured. */
  get enabled(): boolean {
    return this.store !== undefined;
  }

  onApplicationBootstrap(): void {
    if (!this.store) return;
    this.timer = setInterval(() => void this.removeStale(), STALE_SWEEP_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    if (this.timer) clearInterval(this.timer);
  }

  async crl(issuerId: string, caId: string, der: Buffer): Promise<void> {
    await this.put(crlKey(issuerId, caId), der, issuerId);
  }

  /** A signed response about one CertID; only SHA-1 CertIDs have an RFC 5019 file. */
  async ocsp(issuerId: string, certId: CertId, der: Buffer): Promise<void> {
    if (!this.store || certId.hash !== 'sha1') return;
    const key = ocspKey(issuerId, certId);
    if (key) await this.put(key, der, issuerId);
  }

  async removeStale(now = new Date()): Promise<void> {
    if (!this.store) return;
    try {
      await this.store.removeWrittenBefore('ocsp', new Date(now.getTime() - OCSP_RESPONSE_VALIDITY_MS));
    } catch (error) {
      this.logger.warn({ err: error }, 'removing expired published OCSP responses failed; will retry');
    }
  }

  private async put(key: string, body: Buffer, issuerId: string): Promise<void> {
    if (!this.store) return;
    try {
      await this.store.put(key, body);
    } catch (error) {
      this.logger.warn({ err: error, issuer_id: issuerId }, 'publishing a revocation file failed');
    }
  }
}
