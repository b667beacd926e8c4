import { Inject, Injectable } from '@nestjs/common';
import { CertlaneError, ErrorCode, IssuerCaInfo } from '@certlane/contracts';
import { MESSAGE_BUS, MessageBus } from '@certlane/platform';

/** How long what issuance said about an issuer is reused (a CA certificate changes rarely). */
export const ISSUER_CA_TTL_MS = 5 * 60_000;

export type RevocationCapability = 'crl' | 'ocsp';

/**
 * What the issuance service knows about issuing CAs (`issuance.v1.get-issuer-ca`), cached for a
 * few minutes. An unknown issuer is issuance's own not-found error (404 through the gateway).
 */
@Injectable()
export class IssuerCaDirectory {
  private readonly cache = new Map<string, { info: IssuerCaInfo; until: number }>();

  constructor(@Inject(MESSAGE_BUS) private readonly bus: MessageBus) {}

  async get(issuerId: string, now = Date.now()): Promise<IssuerCaInfo> {
    const cached = this.cache.get(issuerId);
    if (cached && cached.until > now) return cached.info;
    const info = await this.bus.request('issuance.v1.get-issuer-ca', { issuer_id: issuerId });
    this.cache.set(issuerId, { info, until: now + ISSUER_CA_TTL_MS });
    return info;
  }

  /** The issuer, refusing with 501 when its kind cannot publish CRLs or OCSP (spec 7). */
  async require(issuerId: string, capability: RevocationCapability): Promise<IssuerCaInfo> {
    const info = await this.get(issuerId);
    if (!info.capabilities[capability]) {
      throw new CertlaneError(
        ErrorCode.NotImplemented,
        `issuer ${issuerId} (${info.kind}) has no ${capability === 'crl' ? 'CRL' : 'OCSP'} support`,
        { issuer_id: issuerId, capability },
      );
    }
    return info;
  }

  forget(issuerId: string): void {
    this.cache.delete(issuerId);
  }
}
