import { Inject, Injectable } from '@nestjs/common';
import { CertlaneError, ErrorCode, IssuerCaInfo } from '@certlane/contracts';
import { MESSAGE_BUS, MessageBus } from '@certlane/platform';
import { CertId, IssuerHashes } from '@certlane/pki';

/** How long what issuance said about an issuer is reused (a CA certificate changes rarely). */
export const ISSUER_CA_TTL_MS = 5 * 60_000;
/** A CertID of no known CA asks issuance again for the issuer's CAs at most this often. */
export const ISSUER_CA_REFRESH_MIN_MS = 1000;

export type RevocationCapability = 'crl' | 'ocsp';

interface Entry {
  info: IssuerCaInfo;
  until: number;
  /** Per CA of the issuer: its name and key hashes, to route an OCSP CertID (ADR 0023). */
  hashes?: { caId: string; hashes: IssuerHashes }[];
  fetchedAt: number;
}

/**
 * What the issuance service knows about an issuer's CAs (`issuance.v1.get-issuer-ca`), cached for
 * a few minutes per (issuer, CA): without a CA, the issuing CA and the list of every CA of the
 * issuer. An unknown issuer is issuance's own not-found error (404 through the gateway).
 */
@Injectable()
export class IssuerCaDirectory {
  private readonly cache = new Map<string, Entry>();

  constructor(@Inject(MESSAGE_BUS) private readonly bus: MessageBus) {}

  async get(issuerId: string, caId?: string, now = Date.now()): Promise<IssuerCaInfo> {
    return (await this.entry(issuerId, caId, now)).info;
  }

  /** The issuer (or one of its CAs), refusing with 501 when its kind cannot publish CRLs or OCSP (spec 7). */
  async require(issuerId: string, capability: RevocationCapability, caId?: string): Promise<IssuerCaInfo> {
    const info = await this.get(issuerId, caId);
    if (!info.capabilities[capability]) {
      throw new CertlaneError(
        ErrorCode.NotImplemented,
        `issuer ${issuerId} (${info.kind}) has no ${capability === 'crl' ? 'CRL' : 'OCSP'} support`,
        { issuer_id: issuerId, capability },
      );
    }
    return info;
  }

  /**
   * The CA of the issuer that a CertID names (by issuerNameHash and issuerKeyHash), or undefined.
   * A CertID of no CA known here asks issuance again (a CA created meanwhile), at most every second
   * per issuer.
   */
  async route(issuerId: string, certId: CertId, now = Date.now()): Promise<string | undefined> {
    let entry = await this.entry(issuerId, undefined, now);
    let found = match(entry, certId);
    if (found === undefined && now - entry.fetchedAt >= ISSUER_CA_REFRESH_MIN_MS) {
      this.cache.delete(issuerId);
      entry = await this.entry(issuerId, undefined, now);
      found = match(entry, certId);
    }
    return found;
  }

  /** A certificate was issued under `caId`: forget the issuer when that CA is new here. */
  noteCa(issuerId: string, caId: string): void {
    const entry = this.cache.get(issuerId);
    if (entry && !entry.info.cas.some((ca) => ca.ca_id === caId)) this.cache.delete(issuerId);
  }

  forget(issuerId: string): void {
    for (const key of this.cache.keys())
      if (key === issuerId || key.startsWith(`${issuerId} `)) this.cache.delete(key);
  }

  private async entry(issuerId: string, caId: string | undefined, now: number): Promise<Entry> {
    const key = caId === undefined ? issuerId : `${issuerId} ${caId}`;
    const cached = this.cache.get(key);
    if (cached && cached.until > now) return cached;
    const info = await this.bus.request('issuance.v1.get-issuer-ca', {
      issuer_id: issuerId,
      ...(caId === undefined ? {} : { ca_id: caId }),
    });
    const entry: Entry = { info, until: now + ISSUER_CA_TTL_MS, fetchedAt: now };
    this.cache.set(key, entry);
    return entry;
  }
}

function match(entry: Entry, certId: CertId): string | undefined {
  entry.hashes ??= (entry.info.cas ?? []).map((ca) => ({
    caId: ca.ca_id,
    hashes: new IssuerHashes(ca.certificate_pem),
  }));
  return entry.hashes.find((ca) => ca.hashes.matches(certId))?.caId;
}
