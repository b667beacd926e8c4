import { readAlgorithmIdentifier } from './algorithm-identifier';
import {
  DerCursor,
  Tlv,
  bytesOf,
  readBitString,
  readOid,
  readRoot,
  readSmallInteger,
  readString,
} from './der/reader';
import { Tag, contextConstructed } from './der/tags';
import { bitString, oid, sequence, set, smallInteger, tlv, tlvList, utf8String } from './der/writer';
import { PkiError } from './errors';
import { Extension, decodeExtensionValue, readExtensions } from './extensions/extension';
import { GeneralName, SubjectAltNameInput } from './extensions/general-name';
import {
  DecodedExtensions,
  ExtendedKeyUsageName,
  KeyUsage,
  MUST_STAPLE_EXTENSION,
  basicConstraintsExtension,
  decodeExtensions,
  extendedKeyUsageExtension,
  keyUsageExtension,
  subjectAltNameExtension,
} from './extensions/standard';
import { Signer } from './keys/key-provider';
import { KeyPolicy, PublicKeyInfo, assertSupportedKey, readSpki } from './keys/public-key';
import { DistinguishedName, NameInput, encodeName, readName } from './name';
import { Oid } from './oids';
import { PemLabel, decodeSingle, toPem } from './pem';
import {
  SignatureAlgorithm,
  signatureAlgorithmOf,
  verifySignature,
  verifySignatureAsync,
} from './signature-algorithm';

/** 64 KiB: a CSR is typically under 2 KiB; this bounds the work an untrusted one can cause. */
export const MAX_CSR_BYTES = 64 * 1024;

export interface CsrAttribute {
  oid: string;
  /** The DER of each value in the attribute's SET. */
  values: Buffer[];
}

/** A PKCS#10 certification request (RFC 2986), parsed and (by default) verified. */
export interface CertificationRequest {
  der: Buffer;
  /** The DER of CertificationRequestInfo, the signed part. */
  info: Buffer;
  subject: DistinguishedName;
  publicKey: PublicKeyInfo;
  signatureAlgorithm: SignatureAlgorithm;
  signature: Buffer;
  /** Every attribute, the extension request included. */
  attributes: CsrAttribute[];
  /** The extensions of the PKCS#9 extensionRequest attribute, as requested. */
  requestedExtensions: Extension[];
  /** The requested extensions libs/pki understands, decoded. */
  requested: DecodedExtensions;
  /** Requested subject alternative names (empty when none). */
  subjectAltNames: GeneralName[];
  /**
   * The PKCS#9 challengePassword attribute (SCEP uses it as a one-time secret). It is a secret:
   * never log it or return it.
   */
  challengePassword?: string;
}

export interface ParseCsrOptions {
  /** Verify the self-signature (default true). Only skip it for display of stored CSRs. */
  verifySignature?: boolean;
  /** Refuse unsupported or weak keys (default: the library's rules); `false` only describes the key. */
  keyPolicy?: KeyPolicy | false;
  maxBytes?: number;
}

const WHAT = 'CSR';

/**
 * Parses a CSR given as PEM (`CERTIFICATE REQUEST` or `NEW CERTIFICATE REQUEST`, CRLF and bundles
 * tolerated), bare base64 or DER, checks its key and verifies its signature.
 */
export function parseCsr(input: string | Uint8Array, options: ParseCsrOptions = {}): CertificationRequest {
  const parts = readCsr(input, options);
  if (options.verifySignature !== false) {
    assertKeyMatchesAlgorithm(parts);
    const { signatureAlgorithm, publicKey, info, signature } = parts;
    if (!verifySignature(signatureAlgorithm, publicKey, info, signature)) throw signatureMismatch();
  }
  return withExtensions(parts);
}

/**
 * `parseCsr` for the issuance hot path: the same checks, errors and result, but the CSR's key is
 * imported through `importPublicKey` (cheaper for EC keys). It runs on the calling thread like
 * `parseCsr`; only the import's API is a promise.
 */
export async function parseCsrAsync(
  input: string | Uint8Array,
  options: ParseCsrOptions = {},
): Promise<CertificationRequest> {
  const parts = readCsr(input, options);
  if (options.verifySignature !== false) {
    assertKeyMatchesAlgorithm(parts);
    const { signatureAlgorithm, publicKey, info, signature } = parts;
    if (!(await verifySignatureAsync(signatureAlgorithm, publicKey, info, signature)))
      throw signatureMismatch();
  }
  return withExtensions(parts);
}

type CsrParts = Omit<CertificationRequest, 'requested' | 'subjectAltNames'>;

/** Everything up to the signature check: DER structure, key policy, signature algorithm. */
function readCsr(input: string | Uint8Array, options: ParseCsrOptions): CsrParts {
  const der = decodeSingle(input, [PemLabel.certificateRequest, PemLabel.newCertificateRequest], {
    maxBytes: options.maxBytes ?? MAX_CSR_BYTES,
    what: WHAT,
  });
  const root = readRoot(der, Tag.Sequence, WHAT);
  const outer = DerCursor.of(der, root, WHAT);
  const infoTlv = outer.next(Tag.Sequence, 'CertificationRequestInfo');
  const algorithm = readAlgorithmIdentifier(der, outer.next(Tag.Sequence, 'signatureAlgorithm'), WHAT);
  const signatureBits = readBitString(der, outer.next(Tag.BitString, 'signature'), WHAT);
  outer.end();

  const info = DerCursor.of(der, infoTlv, WHAT);
  const version = readSmallInteger(der, info.next(Tag.Integer, 'version'), WHAT);
  // RFC 2986 says 0, and nothing else in the request depends on it. Encoders through Ruby's
  // OpenSSL wrote 2 (Ruby's acme-client before 2.0.16, Debian's 2.0.9); Boulder and Pebble read
  // any, so 1 and 2 are read as v1 too.
  if (version < 0 || version > 2)
    throw new PkiError('der_invalid', `${WHAT}: version must be 0 (v1), found ${version}`, { object: WHAT });
  const subject = readName(der, info.next(Tag.Sequence, 'subject'), WHAT);
  const publicKey = readSpki(der, info.next(Tag.Sequence, 'subjectPKInfo'), WHAT);
  // attributes [0] is required by RFC 2986 but some encoders omit it when empty.
  const attributesTlv = info.optional(contextConstructed(0));
  info.end();

  const attributes = attributesTlv ? readAttributes(der, attributesTlv) : [];
  let requestedExtensions: Extension[] = [];
  let challengePassword: string | undefined;
  const attributeTypes = new Set<string>();
  for (const attribute of attributes) {
    // An attribute type given twice is read as the first by some readers and the last by others:
    // a check could pass on one while the certificate is issued from the other.
    if (attributeTypes.has(attribute.oid))
      throw new PkiError('der_invalid', `${WHAT}: attribute ${attribute.oid} appears more than once`, {
        object: WHAT,
      });
    attributeTypes.add(attribute.oid);
    if (attribute.oid === Oid.extensionRequest) {
      if (attribute.values.length !== 1) {
        throw new PkiError('extension_invalid', `${WHAT}: extensionRequest must have exactly one value`, {
          object: WHAT,
        });
      }
      const value = attribute.values[0];
      requestedExtensions = decodeExtensionValue('extensionRequest', WHAT, () =>
        readExtensions(value, readRoot(value, Tag.Sequence, WHAT), WHAT),
      );
    } else if (attribute.oid === Oid.challengePassword && attribute.values.length === 1) {
      const value = attribute.values[0];
      challengePassword = readString(value, readRoot(value, value[0], WHAT), WHAT);
    }
  }

  // The key is judged first: "RSA-1024 is too weak" says more than "its signature algorithm is".
  if (options.keyPolicy !== false) assertSupportedKey(publicKey, options.keyPolicy ?? {});
  const signatureAlgorithm = signatureAlgorithmOf(algorithm, WHAT);
  if (signatureBits.unusedBits !== 0)
    throw new PkiError('csr_signature_invalid', `${WHAT}: signature has unused bits`);
  return {
    der,
    info: bytesOf(der, infoTlv),
    subject,
    publicKey,
    signatureAlgorithm,
    signature: signatureBits.bytes,
    attributes,
    requestedExtensions,
    challengePassword,
  };
}

function assertKeyMatchesAlgorithm({ publicKey, signatureAlgorithm }: CsrParts): void {
  if (publicKey.algorithm !== signatureAlgorithm.keyAlgorithm) {
    throw new PkiError(
      'csr_signature_invalid',
      `${WHAT}: ${signatureAlgorithm.name} signature cannot come from a ${publicKey.description} key`,
    );
  }
}

function signatureMismatch(): PkiError {
  return new PkiError(
    'csr_signature_invalid',
    `${WHAT}: the signature does not verify with the CSR's public key`,
  );
}

function withExtensions(parts: CsrParts): CertificationRequest {
  const requested = decodeExtensions(parts.requestedExtensions, WHAT);
  // Spelled out rather than spread: this runs once per issued certificate.
  return {
    der: parts.der,
    info: parts.info,
    subject: parts.subject,
    publicKey: parts.publicKey,
    signatureAlgorithm: parts.signatureAlgorithm,
    signature: parts.signature,
    attributes: parts.attributes,
    requestedExtensions: parts.requestedExtensions,
    requested,
    subjectAltNames: requested.subjectAltNames ?? [],
    challengePassword: parts.challengePassword,
  };
}

function readAttributes(der: Buffer, tlvAttributes: Tlv): CsrAttribute[] {
  const cursor = DerCursor.of(der, tlvAttributes, WHAT);
  const out: CsrAttribute[] = [];
  while (!cursor.done) {
    const attribute = DerCursor.of(der, cursor.next(Tag.Sequence, 'Attribute'), WHAT);
    const attributeOid = readOid(der, attribute.next(Tag.Oid, 'attribute type'), WHAT);
    const valuesTlv = attribute.next(Tag.Set, 'attribute values');
    attribute.end();
    const values = DerCursor.of(der, valuesTlv, WHAT)
      .rest()
      .map((v) => bytesOf(der, v));
    out.push({ oid: attributeOid, values });
  }
  return out;
}

export interface CreateCsrOptions {
  subject: NameInput;
  signer: Signer;
  subjectAltNames?: readonly SubjectAltNameInput[];
  keyUsage?: readonly KeyUsage[];
  extendedKeyUsage?: readonly (ExtendedKeyUsageName | string)[];
  /** Request CA basic constraints (for a sub-CA CSR sent to an external root). */
  ca?: { pathLength?: number };
  /** Request the TLS feature status_request (must-staple, RFC 7633). */
  mustStaple?: boolean;
  /** PKCS#9 attributes (UTF8String values): a secret for challengePassword, never log it. */
  challengePassword?: string;
  unstructuredName?: string;
}

/** A PKCS#10 CSR signed by `signer` (the local CA uses it for a sub-CA under an external root). */
export async function createCsr(options: CreateCsrOptions): Promise<{ der: Buffer; pem: string }> {
  const extensions: Buffer[] = [];
  if (options.ca) extensions.push(basicConstraintsExtension(true, options.ca.pathLength));
  if (options.keyUsage?.length) extensions.push(keyUsageExtension(options.keyUsage));
  if (options.extendedKeyUsage?.length) extensions.push(extendedKeyUsageExtension(options.extendedKeyUsage));
  if (options.subjectAltNames?.length) {
    extensions.push(subjectAltNameExtension(options.subjectAltNames, options.subject.length === 0));
  }
  if (options.mustStaple) extensions.push(MUST_STAPLE_EXTENSION);
  const attributeList: Buffer[] = [];
  if (options.challengePassword !== undefined) {
    attributeList.push(sequence(oid(Oid.challengePassword), set(utf8String(options.challengePassword))));
  }
  if (options.unstructuredName !== undefined) {
    attributeList.push(sequence(oid(Oid.unstructuredName), set(utf8String(options.unstructuredName))));
  }
  if (extensions.length) {
    attributeList.push(sequence(oid(Oid.extensionRequest), set(tlvList(Tag.Sequence, extensions))));
  }
  const attributes = tlv(contextConstructed(0), ...attributeList);
  const info = sequence(
    smallInteger(0),
    encodeName(options.subject),
    options.signer.publicKey.spki,
    attributes,
  );
  const signature = await options.signer.sign(info);
  const der = sequence(info, options.signer.signatureAlgorithm.identifier, bitString(signature));
  return { der, pem: toPem(PemLabel.certificateRequest, der) };
}
