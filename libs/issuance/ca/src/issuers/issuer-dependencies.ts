import { CertificateAuthority, RevokeRequest, Signer } from '@certlane/pki';
import { AcmeAccounts } from './acme-accounts';

/** The CA a local CA issuer issues under, loaded (key unsealed) by the issuance service. */
export interface IssuingCa {
  id: string;
  certificatePem: string;
  /** The CA's parents up to the root (issuer first), without the CA itself. */
  parentsPem: string[];
  signer: Signer;
  /** The CA's issuing authority for these URLs, when the caller keeps one (built here otherwise). */
  authority?(urls: RevocationUrls): Promise<CertificateAuthority>;
}

/** What the issuance service gives every issuer's connector (the local CA, the script adapter, Vault PKI, ACME). */
export interface IssuerDependencies {
  /** The active issuing CA; throws `ca_not_active` when it is retired or pending. */
  issuingCa(): Promise<IssuingCa>;
  /** Records revocations in the caller's transaction (the local CA is the CA: revoking is recording). */
  recordRevocations(requests: RevokeRequest[]): Promise<void>;
  /** Which of these serials the issuer's CA tree issued (its register, in the caller's transaction). */
  issuedSerials(serialNumbers: string[]): Promise<Set<string>>;
  /** Public base URL of the revocation service (SERVICE_REVOCATION_BASE_URL). */
  revocationBaseUrl: string;
  /** SERVICE_ISSUER_SCRIPTS_DIR: where a `script` issuer's commands must be (ADR 0082). */
  issuerScriptsDirectory: string;
  /** Trust for connectors that call a remote CA over TLS (system roots, SERVICE_SERVER_CA_BUNDLE_PATH). */
  outboundTls: { ca: string[]; rejectUnauthorized: boolean };
  /** The accounts of `acme` issuers at their CAs (ADR 0084). */
  acmeAccounts: AcmeAccounts;
  issuerId: string;
}

/** The CRL DP URIs (one distribution point) and OCSP responders a certificate carries, in order. */
export interface RevocationUrls {
  crl: string[];
  ocsp: string[];
}
