import { createHash } from 'node:crypto';
import { Certificate, CertificateInput, toCertificate } from '../certificate';
import { assertSignerMatches } from '../certificate-builder';
import { isSignedBy } from '../chain';
import { Tag } from '../der/tags';
import {
  bitString,
  enumerated,
  explicit,
  generalizedTime,
  implicit,
  octetString,
  oid,
  sequence,
  tlv,
  tlvList,
} from '../der/writer';
import { PkiError } from '../errors';
import { encodeExtension } from '../extensions/extension';
import { Signer } from '../keys/key-provider';
import { Oid } from '../oids';
import { RevocationReason, revocationReasonCode } from '../revocation-reason';
import { CertId, CertIdHash, IssuerHashes } from './cert-id';
import { OcspRequest } from './request';

/** OCSPResponseStatus (RFC 6960 4.2.1); 4 is unused. */
export const OCSP_RESPONSE_STATUS = {
  successful: 0,
  malformedRequest: 1,
  internalError: 2,
  tryLater: 3,
  sigRequired: 5,
  unauthorized: 6,
} as const;
export type OcspErrorStatus = Exclude<keyof typeof OCSP_RESPONSE_STATUS, 'successful'>;

const ERROR_RESPONSES = new Map<OcspErrorStatus, Buffer>(
  (Object.keys(OCSP_RESPONSE_STATUS) as (keyof typeof OCSP_RESPONSE_STATUS)[])
    .filter((s): s is OcspErrorStatus => s !== 'successful')
    .map((s) => [s, sequence(enumerated(OCSP_RESPONSE_STATUS[s]))]),
);

/**
 * An unsigned error response (RFC 6960 2.3): `malformedRequest` for a request that does not
 * parse, `unauthorized` for an issuer this responder does not serve (RFC 5019 2.2.3), ...
 */
export function ocspErrorResponse(status: OcspErrorStatus): Buffer {
  const response = ERROR_RESPONSES.get(status);
  if (!response) throw new PkiError('profile_invalid', `not an OCSP error status: ${status}`);
  return response;
}

export type CertStatus =
  | { status: 'good' }
  | { status: 'revoked'; revokedAt: Date; reason?: RevocationReason }
  | { status: 'unknown' };

export interface SingleResponseInput {
  certId: CertId;
  status: CertStatus;
  /** Default: the response's thisUpdate. */
  thisUpdate?: Date;
  /** Default: the response's nextUpdate. */
  nextUpdate?: Date;
}

export interface OcspResponseOptions {
  /** Default: now. */
  producedAt?: Date;
  /** Default: producedAt. */
  thisUpdate?: Date;
  /** Default: thisUpdate + the responder's validity; `null` leaves nextUpdate out. */
  nextUpdate?: Date | null;
  /** The request's nonce extnValue (`request.nonceExtension`), echoed in responseExtensions. */
  nonceExtension?: Buffer;
}

export interface OcspResponderOptions {
  /** The CA whose certificates this responder answers for. */
  issuer: CertificateInput;
  /** Signs the responses: the CA's own key, or the key of `responderCertificate`. */
  signer: Signer;
  /**
   * A delegated responder certificate (RFC 6960 4.2.2.2), issued by `issuer` with
   * id-kp-OCSPSigning. It is put in every response's `certs`.
   */
  responderCertificate?: CertificateInput;
  /** Put the delegated certificate in `certs` (default true; without it clients need it out of band). */
  includeResponderCertificate?: boolean;
  /** nextUpdate - thisUpdate when not given per response (default 24 hours). */
  validityMs?: number;
}

const GOOD = implicit(0, Buffer.alloc(0));
const UNKNOWN = implicit(2, Buffer.alloc(0));
const BASIC_RESPONSE_TYPE = oid(Oid.ocspBasic);
const SUCCESSFUL = enumerated(0);
const DAY_MS = 24 * 3600 * 1000;

/**
 * Signs OCSP responses for one issuer. The responderID (byKey), the signature algorithm and the
 * `certs` field are encoded once; a response is a few small DER pieces around the request's own
 * CertID bytes, then one signature through the signer.
 */
export class OcspResponder {
  readonly issuer: Certificate;
  readonly responderCertificate?: Certificate;
  readonly hashes: IssuerHashes;
  private readonly signer: Signer;
  private readonly responderId: Buffer;
  private readonly algorithm: Buffer;
  private readonly certs?: Buffer;
  private readonly validityMs: number;

  constructor(options: OcspResponderOptions) {
    const issuer = toCertificate(options.issuer);
    this.issuer = issuer;
    this.signer = options.signer;
    this.hashes = new IssuerHashes(issuer);
    this.algorithm = options.signer.signatureAlgorithm.identifier;
    this.validityMs = options.validityMs ?? DAY_MS;
    let responderKey = issuer.publicKey;
    if (options.responderCertificate) {
      const responder = toCertificate(options.responderCertificate);
      if (!responder.issuer.der.equals(issuer.subject.der) || !isSignedBy(responder, issuer)) {
        throw new PkiError(
          'issuer_invalid',
          `OCSP responder ${responder.subject.text} was not issued by ${issuer.subject.text}`,
        );
      }
      if (!responder.decoded.extendedKeyUsage?.includes('OCSPSigning')) {
        throw new PkiError(
          'issuer_invalid',
          `OCSP responder ${responder.subject.text} lacks the id-kp-OCSPSigning usage`,
        );
      }
      assertSignerMatches(responder, options.signer);
      this.responderCertificate = responder;
      if (options.includeResponderCertificate !== false) this.certs = explicit(0, sequence(responder.der));
      responderKey = responder.publicKey;
    } else {
      assertSignerMatches(issuer, options.signer);
    }
    // ResponderID byKey [2]: SHA-1 of the responder's subjectPublicKey bits (RFC 6960 4.2.1).
    this.responderId = explicit(
      2,
      octetString(createHash('sha1').update(responderKey.subjectPublicKey).digest()),
    );
  }

  /** A CertID of this issuer for `serial` (hex), to pre-sign the response a GET will be answered with. */
  certId(serial: string | Buffer, hash: CertIdHash = 'sha1'): CertId {
    return this.hashes.certId(serial, hash);
  }

  /** This responder serves the CertID's issuer (else answer `unauthorized`). */
  serves(certId: CertId): boolean {
    return this.hashes.matches(certId);
  }

  /** A signed `successful` OCSPResponse with one SingleResponse per input. */
  async respond(
    responses: readonly SingleResponseInput[],
    options: OcspResponseOptions = {},
  ): Promise<Buffer> {
    if (responses.length === 0)
      throw new PkiError('profile_invalid', 'an OCSP response needs at least one SingleResponse');
    const producedAt = options.producedAt ?? new Date();
    const thisUpdate = options.thisUpdate ?? producedAt;
    const nextUpdate =
      options.nextUpdate === null
        ? undefined
        : (options.nextUpdate ?? new Date(thisUpdate.getTime() + this.validityMs));
    const singles = responses.map((r) =>
      singleResponse(
        r.certId,
        r.status,
        r.thisUpdate ?? thisUpdate,
        r.nextUpdate === undefined ? nextUpdate : r.nextUpdate,
      ),
    );
    const data: Buffer[] = [this.responderId, generalizedTime(producedAt), tlvList(Tag.Sequence, singles)];
    if (options.nonceExtension) {
      data.push(explicit(1, sequence(encodeExtension(Oid.ocspNonce, false, options.nonceExtension))));
    }
    const tbs = tlvList(Tag.Sequence, data);
    const signature = await this.signer.sign(tbs);
    const basic = this.certs
      ? sequence(tbs, this.algorithm, bitString(signature), this.certs)
      : sequence(tbs, this.algorithm, bitString(signature));
    return sequence(SUCCESSFUL, explicit(0, sequence(BASIC_RESPONSE_TYPE, octetString(basic))));
  }

  /**
   * Answers a parsed request: `lookup` gives the status of each serial this responder serves.
   * A request about another issuer gets `unauthorized` (RFC 5019 2.2.3), as a whole.
   */
  async respondTo(
    request: OcspRequest,
    lookup: (serialNumber: string) => CertStatus | Promise<CertStatus>,
    options: Omit<OcspResponseOptions, 'nonceExtension'> = {},
  ): Promise<Buffer> {
    if (!request.certIds.every((id) => this.serves(id))) return ocspErrorResponse('unauthorized');
    const responses: SingleResponseInput[] = [];
    for (const certId of request.certIds)
      responses.push({ certId, status: await lookup(certId.serialNumber) });
    return this.respond(responses, { ...options, nonceExtension: request.nonceExtension });
  }
}

function singleResponse(
  certId: CertId,
  status: CertStatus,
  thisUpdate: Date,
  nextUpdate: Date | undefined,
): Buffer {
  let certStatus: Buffer;
  switch (status.status) {
    case 'good':
      certStatus = GOOD;
      break;
    case 'unknown':
      certStatus = UNKNOWN;
      break;
    case 'revoked': {
      const code = status.reason === undefined ? undefined : revocationReasonCode(status.reason);
      certStatus =
        code === undefined
          ? tlv(0xa1, generalizedTime(status.revokedAt))
          : tlv(0xa1, generalizedTime(status.revokedAt), explicit(0, enumerated(code)));
      break;
    }
    default:
      throw new PkiError(
        'profile_invalid',
        `unknown certificate status ${JSON.stringify((status as { status: unknown }).status)}`,
      );
  }
  return nextUpdate
    ? sequence(certId.der, certStatus, generalizedTime(thisUpdate), explicit(0, generalizedTime(nextUpdate)))
    : sequence(certId.der, certStatus, generalizedTime(thisUpdate));
}
