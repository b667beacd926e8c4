import { CertlaneError } from '@certlane/contracts';
import {
  CaChainResult,
  CertificateAuthority,
  Certificate,
  ConnectionTestResult,
  IssuedCertificateResult,
  IssuerCapabilities,
  IssuerConnector,
  IssuerConnectorFactory,
  IssueRequest,
  parseCertificate,
  PemLabel,
  RenewRequest,
  RevokeRequest,
  templateFromCsr,
  DEFAULT_LEAF_VALIDITY_DAYS,
  toPem,
} from '@certlane/pki';
import { IssuerDependencies, RevocationUrls } from '../issuers/issuer-dependencies';
import { asInputError, requestedCsr } from './pki-errors';

export const LOCAL_CA_CAPABILITIES: IssuerCapabilities = Object.freeze({
  crl: true,
  ocsp: true,
  revoke: true,
  renew: false,
  caChain: true,
  synchronous: true,
});

/** What the local CA connector reads of its issuer's config. */
export interface LocalCaConfig {
  /** The issuer's `publication_base_url`: the static http server of its published files (ADR 0038). */
  publicationBaseUrl?: string;
  /** Defaults of the issuer's config. */
  defaultValidityDays?: number;
  maxValidityDays?: number;
}

export type LocalCaDependencies = IssuerDependencies & LocalCaConfig;

/**
 * CRL distribution point and OCSP responder of a certificate the CA `caId` of an issuer signs
 * (ADR 0021, ADR 0023). The CRL URL names the CA, so a certificate keeps pointing at the CRL of
 * the CA that signed it after the issuer moves to a new issuing CA; the OCSP responder of the
 * issuer answers for all of its CAs. With a publication base (ADR 0038), its URLs come first:
 * the same paths on the static server of the published files, which plain-http relying parties
 * (most of them, and those that try the first location only) can fetch; the https URLs follow.
 */
export function revocationUrls(
  baseUrl: string,
  issuerId: string,
  caId: string,
  publicationBaseUrl?: string,
): RevocationUrls {
  const id = encodeURIComponent(issuerId);
  const bases = [publicationBaseUrl, baseUrl]
    .filter((base): base is string => !!base)
    .map((base) => base.replace(/\/+$/, ''));
  return {
    crl: bases.map((base) => `${base}/crl/${id}/${encodeURIComponent(caId)}.crl`),
    ocsp: bases.map((base) => `${base}/ocsp/${id}`),
  };
}

/**
 * The chain's PEM as `exportPem` writes it (each certificate parsed and written again), kept per
 * chain: parsing the CA certificates for every issued certificate cost more than building it.
 */
const chainPems = new Map<string, string>();

function chainPem(chain: readonly string[]): string {
  const key = chain.join('');
  let pem = chainPems.get(key);
  if (pem === undefined) {
    pem = chain.map((c) => toPem(PemLabel.certificate, parseCertificate(c).der)).join('');
    if (chainPems.size >= 64) chainPems.clear();
    chainPems.set(key, pem);
  }
  return pem;
}

/** A leaf certificate with the CA that signed it (the `ca_id` the issuance service records). */
export interface LocalCaIssued extends IssuedCertificateResult {
  caId: string;
  certificate: Certificate;
}

/**
 * The local CA issuer connector (issue 4 point 2): signs CSRs with the issuer's issuing CA through
 * the pki key provider's signer, every certificate carrying the CRL DP and OCSP AIA of
 * SERVICE_REVOCATION_BASE_URL. Renewal is issuance. Revocation is its record (`recordRevocations`),
 * in batches, of serials its register says it issued (`unknownSerials`).
 */
export class LocalCaConnector implements IssuerConnector {
  readonly kind = 'local_ca';
  readonly capabilities = LOCAL_CA_CAPABILITIES;

  constructor(private readonly dependencies: LocalCaDependencies) {}

  async issue(request: IssueRequest, now = new Date()): Promise<LocalCaIssued> {
    const csr = await requestedCsr(request.csrPem);
    const max = this.dependencies.maxValidityDays;
    // Nothing asked and no issuer default: the leaf default, within the issuer's maximum.
    const days =
      request.profile.validityDays ??
      this.dependencies.defaultValidityDays ??
      (max === undefined ? undefined : Math.min(DEFAULT_LEAF_VALIDITY_DAYS, max));
    if (days !== undefined && max !== undefined && days > max && !request.profile.notAfter) {
      throw CertlaneError.validation([
        {
          field: 'validity_days',
          message: `validity_days ${days} exceeds the issuer's max_validity_days ${max}`,
        },
      ]);
    }
    const { notBefore, notAfter } = request.profile;
    if (notAfter && max !== undefined) {
      const askedDays = (notAfter.getTime() - (notBefore ?? now).getTime()) / 86_400_000;
      if (askedDays > max)
        throw CertlaneError.validation([
          {
            field: 'not_after',
            message: `the validity asked for (${askedDays.toFixed(2)} days) exceeds the issuer's max_validity_days ${max}`,
          },
        ]);
    }
    const ca = await this.dependencies.issuingCa();
    const urls = revocationUrls(
      this.dependencies.revocationBaseUrl,
      this.dependencies.issuerId,
      ca.id,
      this.dependencies.publicationBaseUrl,
    );
    let issued;
    try {
      const authority = ca.authority
        ? await ca.authority(urls)
        : new CertificateAuthority({
            certificate: ca.certificatePem,
            signer: ca.signer,
            crlDistributionPoints: urls.crl,
            ocspUrls: urls.ocsp,
          });
      const template = templateFromCsr(
        csr,
        {
          validityDays: days,
          ...(notBefore ? { notBefore } : {}),
          ...(notAfter ? { notAfter } : {}),
          mustStaple: request.profile.mustStaple,
          subjectAltNames: request.profile.subjectAltNames,
          ...(request.profile.commonName === undefined
            ? {}
            : { subject: request.profile.commonName ? [['CN', request.profile.commonName] as const] : [] }),
          keyUsage: request.profile.keyUsage as never,
          extendedKeyUsage: request.profile.extendedKeyUsage,
        },
        now,
      );
      issued = await authority.issue(template);
    } catch (error) {
      throw asInputError(error, 'certificate request refused');
    }
    const certificate = parseCertificate(issued.der);
    return {
      caId: ca.id,
      certificate,
      certificatePem: toPem(PemLabel.certificate, issued.der),
      chainPem: chainPem([ca.certificatePem, ...ca.parentsPem]),
      serialNumber: certificate.serialNumber,
      subject: certificate.subject.text,
      notBefore: certificate.notBefore,
      notAfter: certificate.notAfter,
      fingerprintSha256: certificate.fingerprintSha256,
    };
  }

  renew(request: RenewRequest): Promise<LocalCaIssued> {
    return this.issue(request);
  }

  revoke(request: RevokeRequest): Promise<void> {
    return this.revokeMany([request]);
  }

  revokeMany(requests: RevokeRequest[]): Promise<void> {
    return this.dependencies.recordRevocations(requests);
  }

  async unknownSerials(serialNumbers: string[]): Promise<string[]> {
    const issued = await this.dependencies.issuedSerials(serialNumbers);
    return serialNumbers.filter((serial) => !issued.has(serial));
  }

  async getCaChain(): Promise<CaChainResult> {
    const ca = await this.dependencies.issuingCa();
    return { chainPem: [ca.certificatePem, ...ca.parentsPem].join('') };
  }

  /** Loads the issuing CA and signs a probe with its key: proves the sealed key opens and matches. */
  async testConnection(): Promise<ConnectionTestResult> {
    const started = Date.now();
    try {
      const ca = await this.dependencies.issuingCa();
      new CertificateAuthority({ certificate: ca.certificatePem, signer: ca.signer });
      await ca.signer.sign(Buffer.from('certlane local CA test'));
      return {
        ok: true,
        message: `issuing CA ${ca.id} is active and its key signs`,
        latencyMs: Date.now() - started,
      };
    } catch (error) {
      return {
        ok: false,
        message: error instanceof CertlaneError ? error.message : 'the issuing CA cannot sign',
        latencyMs: Date.now() - started,
      };
    }
  }
}

/**
 * The local CA's entry in the issuer connector registry. Its config (validated against the
 * issuer type's fields when the issuer is written) holds no secret, so it is shown as stored.
 */
export const localCaConnectorFactory: IssuerConnectorFactory<LocalCaConfig, IssuerDependencies> = {
  kind: 'local_ca',
  capabilities: LOCAL_CA_CAPABILITIES,
  validateConfig(config: unknown): LocalCaConfig {
    const stored = (config ?? {}) as Record<string, unknown>;
    return {
      defaultValidityDays: stored.default_validity_days as number | undefined,
      maxValidityDays: stored.max_validity_days as number | undefined,
      publicationBaseUrl: (stored.publication_base_url as string | undefined) || undefined,
    };
  },
  redact(config: LocalCaConfig): Record<string, unknown> {
    return {
      default_validity_days: config.defaultValidityDays,
      max_validity_days: config.maxValidityDays,
      publication_base_url: config.publicationBaseUrl,
    };
  },
  create(config: LocalCaConfig, dependencies: IssuerDependencies): IssuerConnector {
    return new LocalCaConnector({ ...dependencies, ...config });
  },
};
