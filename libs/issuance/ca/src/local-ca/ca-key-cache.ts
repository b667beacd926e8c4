import { CertificateAuthority, Signer } from '@certlane/pki';

/** What identifies a CA's key: its id, its key provider and the sealed reference as stored. */
export interface CaKeyRow {
  id: string;
  key_provider: string;
  private_key_sealed: string;
}

interface Entry {
  provider: string;
  sealed: string;
  signer: Promise<Signer>;
  /** Issuing authorities over this signer, per CA certificate and CRL DP/OCSP URLs. */
  authorities: Map<string, CertificateAuthority>;
  /** The CA's parents' PEMs (issuer first), per CA certificate: a chain never changes once issued. */
  parents: Map<string, Promise<string[]>>;
}

/**
 * Unsealed CA signers kept in the issuance process's memory, one per CA (ADR 0021), so a
 * signature does not pay for AES-GCM, PKCS#8 parsing and key import every time. An entry is used
 * only while the CA row still holds the same provider and sealed reference, and is dropped when
 * the CA is retired or its load fails. Nothing here is ever logged or serialised; the class keeps
 * no key bytes of its own, only the provider's `Signer`.
 */
export class CaKeyCache {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly load: (ca: CaKeyRow) => Promise<Signer>) {}

  get size(): number {
    return this.entries.size;
  }

  signer(ca: CaKeyRow): Promise<Signer> {
    return this.entry(ca).signer;
  }

  /**
   * The CertificateAuthority of an active CA for one set of URLs, built once (it parses the CA
   * certificate and pre-encodes its issuer parts).
   */
  async authority(
    ca: CaKeyRow,
    certificatePem: string,
    urls: { crl: readonly string[]; ocsp: readonly string[] },
  ): Promise<CertificateAuthority> {
    const entry = this.entry(ca);
    const signer = await entry.signer;
    const key = `${urls.crl.join(' ')}\n${urls.ocsp.join(' ')}\n${certificatePem}`;
    let authority = entry.authorities.get(key);
    if (!authority) {
      authority = new CertificateAuthority({
        certificate: certificatePem,
        signer,
        crlDistributionPoints: [...urls.crl],
        ocspUrls: [...urls.ocsp],
      });
      if (this.entries.get(ca.id) === entry) entry.authorities.set(key, authority);
    }
    return authority;
  }

  /** The parents' PEMs of a CA with a certificate, loaded once per certificate. */
  parents(ca: CaKeyRow, certificatePem: string, load: () => Promise<string[]>): Promise<string[]> {
    const entry = this.entry(ca);
    let parents = entry.parents.get(certificatePem);
    if (!parents) {
      parents = load();
      entry.parents.set(certificatePem, parents);
      parents.catch(() => {
        if (entry.parents.get(certificatePem) === parents) entry.parents.delete(certificatePem);
      });
    }
    return parents;
  }

  /** Forgets a CA (retired, or its row changed). */
  drop(caId: string): void {
    this.entries.delete(caId);
  }

  private entry(ca: CaKeyRow): Entry {
    const existing = this.entries.get(ca.id);
    if (existing && existing.provider === ca.key_provider && existing.sealed === ca.private_key_sealed) {
      return existing;
    }
    const signer = this.load(ca);
    const entry: Entry = {
      provider: ca.key_provider,
      sealed: ca.private_key_sealed,
      signer,
      authorities: new Map(),
      parents: new Map(),
    };
    this.entries.set(ca.id, entry);
    signer.catch(() => {
      if (this.entries.get(ca.id) === entry) this.entries.delete(ca.id);
    });
    return entry;
  }
}
