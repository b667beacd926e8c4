import { createHash } from 'node:crypto';
import { Certificate, CertificateInput, toCertificate } from './certificate';
import { readRoot } from './der/reader';
import { Tag } from './der/tags';
import { bitString, sequence, tlv, unsignedInteger, x509Time } from './der/writer';
import { PkiError } from './errors';
import { Extension, encodeExtension } from './extensions/extension';
import { SubjectAltNameInput } from './extensions/general-name';
import {
  KeyUsage,
  MUST_STAPLE_EXTENSION,
  OCSP_NO_CHECK_EXTENSION,
  authorityInfoAccessExtension,
  authorityKeyIdentifierExtension,
  basicConstraintsExtension,
  crlDistributionPointsExtension,
  extendedKeyUsageExtension,
  keyUsageExtension,
  subjectAltNameExtension,
  subjectKeyIdentifierExtension,
} from './extensions/standard';
import { Signer } from './keys/key-provider';
import { KeyPolicy, PublicKeyInfo, assertSupportedKey } from './keys/public-key';
import { NameInput, encodeName } from './name';
import { Oid } from './oids';
import { randomSerial, serialHex } from './serial';

/** What goes into one certificate, besides what the issuing CA contributes. */
export interface CertificateTemplate {
  /** The subject's public key (from a CSR: `csr.publicKey`). */
  publicKey: PublicKeyInfo;
  /** The subject as a DER Name (e.g. `csr.subject.der`, copied verbatim) or attributes to encode. */
  subject: Buffer | NameInput;
  subjectAltNames?: readonly SubjectAltNameInput[];
  notBefore: Date;
  notAfter: Date;
  keyUsage?: readonly KeyUsage[];
  /** Names (serverAuth, clientAuth, OCSPSigning, ...) or dotted OIDs. */
  extendedKeyUsage?: readonly string[];
  /** A CA certificate; `pathLength` limits the CAs below it. Absent: an end-entity (cA FALSE). */
  ca?: { pathLength?: number };
  /** TLS feature status_request (RFC 7633). */
  mustStaple?: boolean;
  /** id-pkix-ocsp-nocheck, for a delegated OCSP responder certificate. */
  ocspNoCheck?: boolean;
  /** Override the issuer's URLs for this certificate; `[]` leaves the extension out. */
  crlDistributionPoints?: readonly string[];
  ocspUrls?: readonly string[];
  caIssuersUrls?: readonly string[];
  /** The serial's content octets (positive, at most 20 octets); default: 134 random bits. */
  serialNumber?: Buffer;
  /** Extra extensions, appended as given (must not repeat one set above). */
  extraExtensions?: readonly Extension[];
  /** Allow-list for the subject key (the library's own rules always apply). */
  keyPolicy?: KeyPolicy;
}

export interface IssuedCertificate {
  der: Buffer;
  /** Lower-case hex of the serial's content octets. */
  serialNumber: string;
  notBefore: Date;
  notAfter: Date;
}

export interface AuthorityUrls {
  /** CRL distribution point URLs put in the certificates this CA issues. */
  crlDistributionPoints?: readonly string[];
  /** OCSP responder URLs (AIA id-ad-ocsp). */
  ocspUrls?: readonly string[];
  /** URLs of the CA certificate (AIA id-ad-caIssuers). */
  caIssuersUrls?: readonly string[];
}

export interface CertificateAuthorityOptions extends AuthorityUrls {
  certificate: CertificateInput;
  signer: Signer;
  /**
   * What to do with a requested notAfter beyond the CA's own: `clamp` (default) shortens the
   * certificate to end with the CA, `refuse` fails with `profile_invalid`.
   */
  beyondIssuerValidity?: 'clamp' | 'refuse';
}

const VERSION_3 = Buffer.from([0xa0, 0x03, 0x02, 0x01, 0x02]);
const END_ENTITY_CONSTRAINTS = basicConstraintsExtension(false);

/** The parts of a TBSCertificate that come from the issuer, encoded once. */
export interface IssuerParts {
  /** The issuer's subject Name DER, copied into every certificate's issuer field. */
  issuerName: Buffer;
  /** The signature AlgorithmIdentifier DER. */
  algorithm: Buffer;
  /** The complete AKI extension, or undefined to compute it from the subject key (self-signed). */
  authorityKeyId?: Buffer;
  urls: AuthorityUrls;
  defaultCdp?: Buffer;
  defaultAia?: Buffer;
  /** The issuer's own notAfter, with what to do beyond it. */
  notAfterLimit?: Date;
  beyondIssuer: 'clamp' | 'refuse';
  cache: Map<string, Buffer>;
}

export function issuerParts(
  issuerName: Buffer,
  signer: Signer,
  authorityKeyId: Buffer | undefined,
  urls: AuthorityUrls,
  notAfterLimit?: Date,
  beyondIssuer: 'clamp' | 'refuse' = 'clamp',
): IssuerParts {
  const normalized: AuthorityUrls = {
    crlDistributionPoints: urls.crlDistributionPoints ?? [],
    ocspUrls: urls.ocspUrls ?? [],
    caIssuersUrls: urls.caIssuersUrls ?? [],
  };
  return {
    issuerName,
    algorithm: signer.signatureAlgorithm.identifier,
    authorityKeyId: authorityKeyId && authorityKeyIdentifierExtension(authorityKeyId),
    urls: normalized,
    defaultCdp: normalized.crlDistributionPoints?.length
      ? crlDistributionPointsExtension(normalized.crlDistributionPoints)
      : undefined,
    defaultAia:
      normalized.ocspUrls?.length || normalized.caIssuersUrls?.length
        ? authorityInfoAccessExtension(normalized.ocspUrls ?? [], normalized.caIssuersUrls ?? [])
        : undefined,
    notAfterLimit,
    beyondIssuer,
    cache: new Map(),
  };
}

/**
 * A CA ready to issue: the DER parts of a TBSCertificate that depend only on the issuer (issuer
 * name, signature AlgorithmIdentifier, AKI, CRL DP and AIA) are computed once. Each certificate
 * is then assembled from these parts, the CSR's public key and subject bytes (copied, never
 * re-encoded) and a handful of per-certificate fields, and signed through the signer.
 */
export class CertificateAuthority {
  readonly certificate: Certificate;
  readonly signer: Signer;
  private readonly parts: IssuerParts;

  constructor(options: CertificateAuthorityOptions) {
    const certificate = toCertificate(options.certificate);
    assertCanIssue(certificate, 'keyCertSign');
    assertSignerMatches(certificate, options.signer);
    this.certificate = certificate;
    this.signer = options.signer;
    this.parts = issuerParts(
      certificate.subject.der,
      options.signer,
      certificate.decoded.subjectKeyIdentifier ?? keyIdentifier(certificate.publicKey),
      options,
      certificate.notAfter,
      options.beyondIssuerValidity ?? 'clamp',
    );
  }

  /** Builds and signs one certificate. */
  issue(template: CertificateTemplate): Promise<IssuedCertificate> {
    return signTbs(this.parts, this.signer, template);
  }

  /** The TBSCertificate DER and the values chosen for it (exposed for benchmarks and tests). */
  buildTbs(template: CertificateTemplate): BuiltTbs {
    return buildTbs(this.parts, template);
  }

  /** Certificate ::= SEQUENCE { tbs, signatureAlgorithm, signatureValue }. */
  assemble(tbs: Buffer, signature: Buffer): Buffer {
    return sequence(tbs, this.parts.algorithm, bitString(signature));
  }
}

export interface BuiltTbs {
  tbs: Buffer;
  /** The serial INTEGER's content octets as encoded. */
  serial: Buffer;
  notBefore: Date;
  notAfter: Date;
}

export async function signTbs(
  parts: IssuerParts,
  signer: Signer,
  template: CertificateTemplate,
): Promise<IssuedCertificate> {
  const { tbs, serial, notBefore, notAfter } = buildTbs(parts, template);
  const signature = await signer.sign(tbs);
  return {
    der: sequence(tbs, parts.algorithm, bitString(signature)),
    serialNumber: serialHex(serial),
    notBefore,
    notAfter,
  };
}

/** Encoded extensions per usage list: by array identity first (profiles reuse their arrays), then by content. */
const byList = new WeakMap<object, Map<IssuerParts, Buffer>>();

function cachedList(
  parts: IssuerParts,
  prefix: string,
  list: readonly string[],
  build: () => Buffer,
): Buffer {
  let perIssuer = byList.get(list);
  const hit = perIssuer?.get(parts);
  if (hit) return hit;
  const value = cached(parts, `${prefix}:${list.join(',')}`, build);
  if (Object.isFrozen(list)) {
    if (!perIssuer) byList.set(list, (perIssuer = new Map()));
    perIssuer.set(parts, value);
  }
  return value;
}

function cached(parts: IssuerParts, key: string, build: () => Buffer): Buffer {
  let value = parts.cache.get(key);
  if (!value) {
    value = build();
    if (parts.cache.size < 256) parts.cache.set(key, value);
  }
  return value;
}

export function buildTbs(parts: IssuerParts, template: CertificateTemplate): BuiltTbs {
  assertSupportedKey(template.publicKey, template.keyPolicy);
  const serial = template.serialNumber ?? randomSerial();
  if (serial.length === 0 || serial.length > 21 || serial[0] & 0x80 || serial.every((b) => b === 0)) {
    throw new PkiError('serial_invalid', 'serial number must be positive and at most 20 octets');
  }
  const serialDer = unsignedInteger(serial);
  if (serialDer.length > 22) throw new PkiError('serial_invalid', 'serial number must be at most 20 octets');
  const notBefore = truncateToSeconds(template.notBefore);
  let notAfter = truncateToSeconds(template.notAfter);
  if (Number.isNaN(notBefore.getTime()) || Number.isNaN(notAfter.getTime())) {
    throw new PkiError('profile_invalid', 'notBefore and notAfter must be valid dates');
  }
  if (parts.notAfterLimit && notAfter > parts.notAfterLimit) {
    if (parts.beyondIssuer === 'refuse') {
      throw new PkiError(
        'profile_invalid',
        `notAfter ${notAfter.toISOString()} is after the CA's own notAfter`,
      );
    }
    notAfter = parts.notAfterLimit;
  }
  if (notAfter.getTime() <= notBefore.getTime()) {
    throw new PkiError('profile_invalid', 'notAfter must be later than notBefore');
  }
  const subject = Buffer.isBuffer(template.subject) ? template.subject : encodeName(template.subject);
  // A subject given as DER (normally the CSR's, already parsed) must at least be one SEQUENCE.
  if (Buffer.isBuffer(template.subject)) readRoot(subject, Tag.Sequence, 'subject');
  const pathLength = template.ca?.pathLength;
  if (pathLength !== undefined && (!Number.isInteger(pathLength) || pathLength < 0 || pathLength > 255)) {
    throw new PkiError('profile_invalid', 'pathLength must be an integer from 0 to 255');
  }
  const subjectEmpty = subject.length === 2;
  const sans = template.subjectAltNames ?? [];
  if (subjectEmpty && sans.length === 0) {
    throw new PkiError(
      'profile_invalid',
      'a certificate needs a subject or at least one subject alternative name',
    );
  }

  const extensions: Buffer[] = [];
  const seen = new Set<string>();
  const add = (extensionOid: string, ext: Buffer) => {
    seen.add(extensionOid);
    extensions.push(ext);
  };
  const ca = template.ca;
  add(
    Oid.basicConstraints,
    ca
      ? cached(parts, `bc:${ca.pathLength}`, () => basicConstraintsExtension(true, ca.pathLength))
      : END_ENTITY_CONSTRAINTS,
  );
  const keyUsage = template.keyUsage;
  if (keyUsage?.length)
    add(
      Oid.keyUsage,
      cachedList(parts, 'ku', keyUsage, () => keyUsageExtension(keyUsage)),
    );
  const eku = template.extendedKeyUsage;
  if (eku?.length)
    add(
      Oid.extKeyUsage,
      cachedList(parts, 'eku', eku, () => extendedKeyUsageExtension(eku)),
    );
  const ski = keyIdentifier(template.publicKey);
  add(Oid.subjectKeyIdentifier, subjectKeyIdentifierExtension(ski));
  add(Oid.authorityKeyIdentifier, parts.authorityKeyId ?? authorityKeyIdentifierExtension(ski));
  if (sans.length) add(Oid.subjectAltName, subjectAltNameExtension(sans, subjectEmpty));
  const cdpUrls = template.crlDistributionPoints;
  const cdp =
    cdpUrls === undefined
      ? parts.defaultCdp
      : cdpUrls.length
        ? crlDistributionPointsExtension(cdpUrls)
        : undefined;
  if (cdp) add(Oid.crlDistributionPoints, cdp);
  let aia = parts.defaultAia;
  if (template.ocspUrls !== undefined || template.caIssuersUrls !== undefined) {
    const ocsp = template.ocspUrls ?? parts.urls.ocspUrls ?? [];
    const caIssuers = template.caIssuersUrls ?? parts.urls.caIssuersUrls ?? [];
    aia = ocsp.length + caIssuers.length ? authorityInfoAccessExtension(ocsp, caIssuers) : undefined;
  }
  if (aia) add(Oid.authorityInfoAccess, aia);
  if (template.mustStaple) add(Oid.tlsFeature, MUST_STAPLE_EXTENSION);
  if (template.ocspNoCheck) add(Oid.ocspNoCheck, OCSP_NO_CHECK_EXTENSION);
  for (const extra of template.extraExtensions ?? []) {
    if (seen.has(extra.oid)) throw new PkiError('extension_invalid', `extension ${extra.oid} is set twice`);
    add(extra.oid, encodeExtension(extra.oid, extra.critical, extra.value));
  }

  const tbs = sequence(
    VERSION_3,
    serialDer,
    parts.algorithm,
    parts.issuerName,
    sequence(x509Time(notBefore), x509Time(notAfter)),
    subject,
    template.publicKey.spki,
    tlv(0xa3, tlv(Tag.Sequence, ...extensions)),
  );
  return { tbs, serial: serialDer.subarray(2), notBefore, notAfter };
}

function truncateToSeconds(date: Date): Date {
  return new Date(Math.floor(date.getTime() / 1000) * 1000);
}

/** RFC 5280 4.2.1.2 method (1): SHA-1 of the subjectPublicKey bits. */
export function keyIdentifier(publicKey: PublicKeyInfo): Buffer {
  return createHash('sha1').update(publicKey.subjectPublicKey).digest();
}

/** The certificate is a CA that may sign certificates (`keyCertSign`) or CRLs (`cRLSign`). */
export function assertCanIssue(certificate: Certificate, usage: 'keyCertSign' | 'cRLSign'): void {
  const { basicConstraints, keyUsage } = certificate.decoded;
  if (usage === 'keyCertSign' && !basicConstraints?.ca) {
    throw new PkiError(
      'issuer_invalid',
      `${certificate.subject.text} is not a CA certificate (basicConstraints cA is not set)`,
    );
  }
  if (keyUsage && !keyUsage.includes(usage)) {
    throw new PkiError('issuer_invalid', `${certificate.subject.text} lacks the ${usage} key usage`);
  }
}

/** The signer's public key is the certificate's (`key_mismatch` otherwise). */
export function assertSignerMatches(certificate: Certificate, signer: Signer): void {
  const a = certificate.publicKey;
  const b = signer.publicKey;
  if (
    a.algorithmOid !== b.algorithmOid ||
    a.curve !== b.curve ||
    !a.subjectPublicKey.equals(b.subjectPublicKey)
  ) {
    throw new PkiError('key_mismatch', `the signing key does not belong to ${certificate.subject.text}`);
  }
}
