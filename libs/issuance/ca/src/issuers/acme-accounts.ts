/** An `acme` issuer's account at its CA: the key (PKCS#8 PEM) and, once registered, its URL. */
export interface AcmeClientAccount {
  keyPem: string;
  accountUrl: string | null;
}

/** The account store an `acme` connector is given (ADR 0084). */
export interface AcmeAccounts {
  /** The issuer's account for this directory; made (a new P-256 key, stored sealed) when it has none. */
  accountFor(issuerId: string, directoryUrl: string): Promise<AcmeClientAccount>;
  /** Records the account URL the CA gave the key. */
  registered(issuerId: string, directoryUrl: string, accountUrl: string): Promise<void>;
}

/** Nest token of the service's AcmeAccounts (the acme-issuer folder's store). */
export const ACME_ACCOUNTS = Symbol('ACME_ACCOUNTS');
