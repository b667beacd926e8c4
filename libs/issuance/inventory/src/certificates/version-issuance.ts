import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { issuedEkus, RequestContext, SanInput } from '@certlane/contracts';
import { Certificate, parseCertificate, parseCsr } from '@certlane/pki';
import { EntityManager } from 'typeorm';
import { JobRow } from '../jobs/job.repository';
import { LocalCaService, SignedCertificate } from '@certlane/issuance-ca';
import { ProfileRow } from '@certlane/issuance-governance';
import { CertificateKeySealer } from './certificate-keys';
import { CertificateRow, issuerToIssueFrom } from './certificate.repository';
import { StatusTransitions } from './status-transitions';
import { CertificateRepository } from './certificate.repository';

/** The EKUs a CSR asks for; none when it cannot be read (the issuer refuses it then). */
function requestedEkus(csrPem: string): readonly string[] | undefined {
  try {
    return parseCsr(csrPem).requested.extendedKeyUsage;
  } catch {
    return undefined;
  }
}

/** What `sign` needs besides the certificate: its CSR and the choices of its profile. */
export interface VersionRequest {
  csrPem: string;
  profile: Pick<ProfileRow, 'validity_days' | 'must_staple' | 'allowed_ekus'> | null;
  /** The names to certify instead of the CSR's (the agent flow passes the certificate's). */
  sans?: SanInput[];
}

/** A signed certificate and what its version keeps besides it. */
export interface SignedVersion {
  signed: SignedCertificate;
  csrPem: string;
  /** The version's key algorithm, as the flow names it. */
  keyAlgorithm: string;
  /** The private key, when the service generated it (server key generation): sealed with the version. */
  pkcs8?: Buffer;
}

export interface StoredVersion {
  certificate: CertificateRow;
  versionId: string;
  /** The issued certificate, parsed. */
  issued: Certificate;
}

/**
 * Issuing a new version of a managed certificate (issue 16 point 4): the one use case behind both
 * key-generation modes (the agent's CSR, the server-mode runner's own key). `sign` has the
 * certificate's issuer sign the CSR and writes nothing (it runs outside any transaction, no row
 * lock held); `store`, in the caller's transaction that completes the job, records the serial and
 * stores the version (and its sealed key), so all of it commits or none does (ADR 0045).
 */
@Injectable()
export class VersionIssuance {
  constructor(
    private readonly certificates: CertificateRepository,
    private readonly localCa: LocalCaService,
    private readonly transitions: StatusTransitions,
    private readonly sealer: CertificateKeySealer,
  ) {}

  sign(
    certificate: CertificateRow,
    request: VersionRequest,
    context: RequestContext,
  ): Promise<SignedCertificate> {
    const { profile } = request;
    const ekus = issuedEkus(profile, requestedEkus(request.csrPem));
    return this.localCa.sign(
      {
        issuer_id: issuerToIssueFrom(certificate),
        csr_pem: request.csrPem,
        ...(request.sans ? { sans: request.sans } : {}),
        ...(profile?.validity_days ? { validity_days: profile.validity_days } : {}),
        ...(profile?.must_staple ? { must_staple: true } : {}),
        ...(ekus ? { extended_key_usage: ekus } : {}),
      },
      context,
    );
  }

  async store(
    manager: EntityManager,
    locked: CertificateRow,
    job: JobRow,
    version: SignedVersion,
    context: RequestContext | undefined,
  ): Promise<StoredVersion> {
    const issued = version.signed.certificate;
    const parsed = parseCertificate(issued.certificate_pem);
    const versionId = `ver-${randomUUID()}`;
    await this.localCa.recordIssued(manager, version.signed);
    const stored = await this.transitions.storeVersion(
      manager,
      locked,
      {
        id: versionId,
        certificate_id: locked.id,
        serial_number: parsed.serialNumber,
        fingerprint_sha256: parsed.fingerprintSha256,
        key_algorithm: version.keyAlgorithm,
        key_size: parsed.publicKey.size ?? 0,
        issued_at: new Date(),
        not_before: parsed.notBefore,
        not_after: parsed.notAfter,
        cert_pem: issued.certificate_pem,
        chain_pem: issued.chain_pem,
        csr_pem: version.csrPem,
        issuer_id: issued.issuer_id,
        job_id: job.id,
      },
      context,
    );
    if (version.pkcs8) {
      await this.certificates.addKey(
        manager,
        versionId,
        locked.id,
        this.sealer.seal(versionId, version.pkcs8),
      );
    }
    return { certificate: stored.certificate, versionId, issued: parsed };
  }
}
