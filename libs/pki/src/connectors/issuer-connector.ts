import type { Certificate } from '../certificate';
import type { RevocationReason } from '../revocation-reason';

/**
 * The contract every issuer connector implements (issue 4, point 2): the local CA first, then
 * ACME, secrets-vault PKI, cloud private CAs, commercial REST CAs, the enterprise directory CA and
 * the script adapter. Types only: the implementations live in `libs/connectors/<kind>/` and the
 * issuance service calls them through this interface alone. Certificates cross it as PEM text,
 * serials as lower-case hex, times as `Date`.
 */

/** What a connector can do, so callers answer 501 (spec section 7) instead of trying. */
export interface IssuerCapabilities {
  /** Serves a CRL for what it issues (`GET /api/v1/crl/{issuer_id}`). */
  crl: boolean;
  /** Answers OCSP for what it issues (`GET /api/v1/ocsp/{issuer_id}/{serial}`). */
  ocsp: boolean;
  /** Can revoke at the CA. When false, revocation is recorded locally only. */
  revoke: boolean;
  /** Has a renewal operation of its own (ACME ARI, CA-side renew); otherwise renew = issue. */
  renew: boolean;
  /** Can hand out its CA chain. */
  caChain: boolean;
  /** Certificate issued in the same call; false when the CA answers later (approval, polling). */
  synchronous: boolean;
}

/** The certificate-level choices made by a profile, passed to the CA (which may ignore or override some). */
export interface IssuanceProfileRequest {
  validityDays?: number;
  /** An exact validity asked for (ACME's notBefore/notAfter); notAfter wins over validityDays. */
  notBefore?: Date;
  notAfter?: Date;
  keyUsage?: string[];
  extendedKeyUsage?: string[];
  mustStaple?: boolean;
  /** SANs to certify instead of the ones the CSR requests. */
  subjectAltNames?: Array<{ type: 'dns' | 'ip' | 'email' | 'uri'; value: string }>;
  /** A subject holding only this common name ('' for an empty one) instead of the CSR's subject. */
  commonName?: string;
  /** Connector-specific profile or template name at the CA (e.g. an ACME profile, a vault role). */
  caProfile?: string;
}

export interface IssueRequest {
  /** PKCS#10 CSR, PEM. The private key never reaches the connector. */
  csrPem: string;
  profile: IssuanceProfileRequest;
  /** Makes a retried call return the first result instead of issuing twice (where the CA allows). */
  idempotencyKey: string;
  /** For logs and audit at the CA; never secret. */
  requestId?: string;
}

export interface RenewRequest extends IssueRequest {
  /** The certificate being renewed, PEM (ACME ARI and some CAs link the two). */
  previousCertificatePem: string;
}

export interface IssuedCertificateResult {
  certificatePem: string;
  /** The issuing chain, issuer first, PEM concatenated; without the leaf. */
  chainPem: string;
  serialNumber: string;
  /** The certificate's subject, RFC 4514 text. */
  subject: string;
  notBefore: Date;
  notAfter: Date;
  fingerprintSha256: string;
  /** The CA of the issuer's own CA tree that signed it, for issuers that keep one (the local CA). */
  caId?: string;
  /** The leaf already parsed, when the connector parsed it (callers then need not parse it again). */
  certificate?: Certificate;
}

/** For connectors that are not synchronous: where to poll for the result. */
export interface PendingIssuance {
  pending: true;
  /** Opaque reference the connector understands in `poll`. */
  reference: string;
  retryAfterSeconds: number;
}

export interface RevokeRequest {
  serialNumber: string;
  reason: RevocationReason;
  /** Default: now. */
  revokedAt?: Date;
  /** Some CAs identify the certificate by its PEM rather than its serial. */
  certificatePem?: string;
  idempotencyKey: string;
}

export interface CaChainResult {
  /** The CA certificates, issuing CA first, root last when the CA gives it, PEM concatenated. */
  chainPem: string;
}

export interface ConnectionTestResult {
  ok: boolean;
  /** Human-readable and free of secrets (no tokens, no passwords, no key material). */
  message: string;
  /** Round trip to the CA, when one was made. */
  latencyMs?: number;
}

/** Failures a connector reports; the issuance service maps them to job states and HTTP codes. */
export type IssuerErrorKind =
  /** The CA refused this request for good (policy, bad CSR, unauthorized name): do not retry. */
  | 'rejected'
  /** The CA is unreachable or overloaded: retry with backoff. */
  | 'unavailable'
  /** The connector's configuration or credentials are wrong: fix the issuer, do not retry. */
  | 'misconfigured'
  /** The operation is not supported by this kind (see capabilities). */
  | 'unsupported';

/**
 * A failure a connector reports about the CA (never about the caller's database): the issuance
 * service answers it by kind (a refused request, a CA that is down, an issuer to fix) and records
 * a revocation the CA did not take here only, naming why.
 */
export class IssuerError extends Error {
  constructor(
    readonly kind: IssuerErrorKind,
    message: string,
  ) {
    super(message);
    this.name = 'IssuerError';
  }
}

export function isIssuerError(error: unknown): error is IssuerError {
  return error instanceof IssuerError;
}

export interface IssuerConnector {
  /** The issuer kind, e.g. `local_ca`, `acme`. */
  readonly kind: string;
  readonly capabilities: IssuerCapabilities;
  issue(request: IssueRequest): Promise<IssuedCertificateResult | PendingIssuance>;
  renew(request: RenewRequest): Promise<IssuedCertificateResult | PendingIssuance>;
  /** Only for connectors that are not synchronous. */
  poll?(reference: string): Promise<IssuedCertificateResult | PendingIssuance>;
  revoke(request: RevokeRequest): Promise<void>;
  /** Many serials in one call, for CAs that take a batch; callers fall back to `revoke` per serial. */
  revokeMany?(requests: RevokeRequest[]): Promise<void>;
  /**
   * Of these serials, those the CA never issued, for CAs that keep their own register of what
   * they issued (the local CA): a caller refuses to revoke them before revoking anything.
   */
  unknownSerials?(serialNumbers: string[]): Promise<string[]>;
  getCaChain(): Promise<CaChainResult>;
  testConnection(): Promise<ConnectionTestResult>;
}

/**
 * How a kind is registered: it validates its stored config (decrypted by the caller) and builds a
 * connector from it. `redact` returns the config as shown to users, secret-bearing keys replaced
 * (spec 2.12).
 */
export interface IssuerConnectorFactory<Config = unknown, Dependencies = unknown> {
  readonly kind: string;
  readonly capabilities: IssuerCapabilities;
  /** Throws a validation error naming the offending fields. */
  validateConfig(config: unknown): Config;
  redact(config: Config): Record<string, unknown>;
  create(config: Config, dependencies: Dependencies): IssuerConnector;
}

/** Whether a connector answered "pending" (poll later) rather than with the certificate. */
export function isPendingIssuance(
  result: IssuedCertificateResult | PendingIssuance,
): result is PendingIssuance {
  return 'pending' in result && result.pending === true;
}
