import { Inject, Injectable } from '@nestjs/common';
import { IssuerCaInfo } from '@certlane/contracts';
import {
  CERTLANE_CONFIG,
  CertlaneConfig,
  CertlaneLogger,
  LOGGER,
  MESSAGE_BUS,
  MessageBus,
  SecretBox,
} from '@certlane/platform';
import {
  createCsr,
  OcspResponder,
  parseCertificate,
  SoftwareKeyProvider,
  SoftwareSigner,
} from '@certlane/pki';
import { ResponderRepository } from './responder.repository';

/** HKDF info label of the responder keys' secret box (distinct from every other use of the key). */
export const RESPONDER_KEY_BOX = 'revocation ocsp-responder-key';

/** A responder is never renewed sooner than this after its issuance, whatever the lead time. */
export const MIN_RESPONDER_AGE_MS = 5000;
/** Default lead time (SERVICE_OCSP_RESPONDER_RENEW_BEFORE). */
export const RESPONDER_RENEW_BEFORE_MS = 24 * 3600_000;

/**
 * When to renew a responder certificate: `renewBeforeMs` before it ends or once two thirds of its
 * life have passed, whichever comes first, but not within 5 s of its notBefore (a lead time as
 * long as the certificate's life must not renew it on every request).
 */
export function responderRenewAt(
  notBefore: Date,
  notAfter: Date,
  renewBeforeMs = RESPONDER_RENEW_BEFORE_MS,
): Date {
  const life = notAfter.getTime() - notBefore.getTime();
  const renewAt = Math.min(notBefore.getTime() + (life * 2) / 3, notAfter.getTime() - renewBeforeMs);
  return new Date(Math.max(renewAt, notBefore.getTime() + MIN_RESPONDER_AGE_MS));
}

export interface LoadedResponder {
  /** The CA of the issuer this responder answers for. */
  caId: string;
  responder: OcspResponder;
  renewAt: Date;
  notAfter: Date;
}

/**
 * The delegated OCSP responder of each CA of an issuer (RFC 6960 4.2.2.2, ADR 0023): an ECDSA
 * P-256 key generated here through the pki KeyProvider and stored sealed (AES-256-GCM, bound to
 * the issuer and CA ids), with a certificate from `issuance.v1.issue-ocsp-responder` signed by
 * that CA (retired ones too). Responses are signed locally with it, so OCSP never waits on the
 * issuance service.
 */
@Injectable()
export class ResponderKeys {
  private readonly box: SecretBox;
  private readonly keys = new SoftwareKeyProvider();
  private readonly renewBeforeMs: number;

  constructor(
    @Inject(CERTLANE_CONFIG) config: CertlaneConfig,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(LOGGER) private readonly logger: CertlaneLogger,
    private readonly repository: ResponderRepository,
  ) {
    this.box = new SecretBox(config.configEncryptionKey, RESPONDER_KEY_BOX);
    this.renewBeforeMs = config.revocation.responderRenewBeforeMs;
  }

  /** The stored responder when it still fits the CA and is not due for renewal; else a new one. */
  async load(ca: IssuerCaInfo, now = new Date()): Promise<LoadedResponder> {
    const row = await this.repository.find(ca.issuer_id, ca.ca_id);
    if (row) {
      try {
        const loaded = this.open(ca, row.sealed_private_key, row.certificate_pem);
        if (loaded.renewAt.getTime() > now.getTime()) return loaded;
      } catch (error) {
        this.logger.warn(
          { err: error, issuer_id: ca.issuer_id, ca_id: ca.ca_id },
          'stored OCSP responder unusable; issuing a new one',
        );
      }
    }
    return this.issue(ca);
  }

  async issue(ca: IssuerCaInfo): Promise<LoadedResponder> {
    const { handle, signer } = await this.keys.generate({ algorithm: 'ECDSA', curve: 'P-256' });
    const csr = await createCsr({
      subject: [['CN', `Certlane OCSP responder for ${ca.issuer_id} ${ca.ca_id}`.slice(0, 64)]],
      signer,
      keyUsage: ['digitalSignature'],
      extendedKeyUsage: ['OCSPSigning'],
    });
    const issued = await this.bus.request('issuance.v1.issue-ocsp-responder', {
      issuer_id: ca.issuer_id,
      ca_id: ca.ca_id,
      csr_pem: csr.pem,
    });
    const sealed = this.box.seal(handle.reference as Buffer, sealBinding(ca));
    const loaded = this.open(ca, sealed, issued.certificate_pem);
    await this.repository.save({
      issuer_id: ca.issuer_id,
      ca_id: ca.ca_id,
      sealed_private_key: sealed,
      certificate_pem: issued.certificate_pem,
      not_after: loaded.notAfter,
    });
    this.logger.info(
      { issuer_id: ca.issuer_id, ca_id: ca.ca_id, not_after: loaded.notAfter.toISOString() },
      'OCSP responder certificate issued',
    );
    return loaded;
  }

  private open(ca: IssuerCaInfo, sealed: string, certificatePem: string): LoadedResponder {
    const signer = SoftwareSigner.fromPrivateKey(this.box.openBuffer(sealed, sealBinding(ca)));
    const certificate = parseCertificate(certificatePem);
    const responder = new OcspResponder({
      issuer: ca.ca_certificate_pem,
      signer,
      responderCertificate: certificate,
    });
    return {
      caId: ca.ca_id,
      responder,
      notAfter: certificate.notAfter,
      renewAt: responderRenewAt(certificate.notBefore, certificate.notAfter, this.renewBeforeMs),
    };
  }
}

/** The associated data of a sealed responder key: its row (issuer and CA). */
const sealBinding = (ca: IssuerCaInfo) => `${ca.issuer_id} ${ca.ca_id}`;
