import { createHash } from 'node:crypto';
import { CertlaneError, ErrorCode, IssuerCaInfo, SignDigestRequest } from '@certlane/contracts';
import { MessageBus } from '@certlane/platform';
import {
  parseCertificate,
  PublicKeyInfo,
  SignatureAlgorithm,
  SignatureAlgorithmName,
  SignatureAlgorithms,
  Signer,
} from '@certlane/pki';

/**
 * A pki `Signer` for an issuing CA whose private key stays in the issuance service (ADR 0021):
 * `sign(data)` hashes `data` here and asks `issuance.v1.sign-digest` to sign the digest, so the
 * revocation service builds CRLs with libs/pki without ever holding a CA key.
 */
export class RemoteCaSigner implements Signer {
  readonly publicKey: PublicKeyInfo;
  readonly signatureAlgorithm: SignatureAlgorithm;
  private readonly hash: 'sha256' | 'sha384' | 'sha512';

  constructor(
    private readonly bus: Pick<MessageBus, 'request'>,
    readonly ca: IssuerCaInfo,
  ) {
    this.publicKey = parseCertificate(ca.ca_certificate_pem).publicKey;
    const algorithm = SignatureAlgorithms[ca.signature_algorithm as SignatureAlgorithmName];
    if (!algorithm) {
      throw new CertlaneError(
        ErrorCode.NotImplemented,
        `issuer ${ca.issuer_id} signs with ${ca.signature_algorithm}, which cannot sign a CRL remotely`,
        { issuer_id: ca.issuer_id },
      );
    }
    if (algorithm.hash === null) {
      // Ed25519 signs the message itself, not a digest (RFC 8032): there is nothing to send.
      throw new CertlaneError(
        ErrorCode.NotImplemented,
        `issuer ${ca.issuer_id} has an ${algorithm.name} key; a digest cannot be signed remotely`,
        { issuer_id: ca.issuer_id },
      );
    }
    if (algorithm.keyAlgorithm !== this.publicKey.algorithm) {
      throw new CertlaneError(
        ErrorCode.Internal,
        `issuer ${ca.issuer_id}: ${algorithm.name} does not fit its ${this.publicKey.algorithm} key`,
      );
    }
    this.signatureAlgorithm = algorithm;
    this.hash = algorithm.hash;
  }

  async sign(data: Uint8Array): Promise<Buffer> {
    const request: SignDigestRequest = {
      issuer_id: this.ca.issuer_id,
      ca_id: this.ca.ca_id,
      purpose: 'crl',
      digest_algorithm: this.hash,
      digest_base64: createHash(this.hash).update(data).digest('base64'),
    };
    const response = await this.bus.request('issuance.v1.sign-digest', request);
    if (response.signature_algorithm !== this.signatureAlgorithm.name) {
      throw new CertlaneError(
        ErrorCode.Internal,
        `issuer ${this.ca.issuer_id} signed with ${response.signature_algorithm}, expected ${this.signatureAlgorithm.name}`,
      );
    }
    return Buffer.from(response.signature_base64, 'base64');
  }
}
