import { createPublicKey, KeyObject, verify as verifySignature, X509Certificate } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import { spkiKeyObject } from '@certlane/pki';
import { CsrFacts, CSR_ATTRIBUTE_OIDS, HolderNames } from '@certlane/protocol-frontends-domain';
import { signatureFitsKey } from '../csr-signature';
import { bytesOf, children, contentOf, Node, oidOf, readNode } from '../der-reader';

const OID_CN = '2.5.4.3';
const OID_CHALLENGE_PASSWORD = '1.2.840.113549.1.9.7';
const OID_EXTENSION_REQUEST = '1.2.840.113549.1.9.14';
const OID_SAN = '2.5.29.17';
const OID_EKU = '2.5.29.37';
/** The signature algorithms Node verifies here (null: the key's own hash, Ed25519); others go to @peculiar/x509. */
const NODE_SIGNATURES: Readonly<Record<string, string | null>> = {
  '1.2.840.113549.1.1.11': 'sha256',
  '1.2.840.113549.1.1.12': 'sha384',
  '1.2.840.113549.1.1.13': 'sha512',
  '1.2.840.10045.4.3.2': 'sha256',
  '1.2.840.10045.4.3.3': 'sha384',
  '1.2.840.10045.4.3.4': 'sha512',
  '1.3.101.112': null,
};
/** GeneralName tags read here, with @peculiar/x509's names of them; other forms go to @peculiar/x509. */
const SAN_TYPES: Readonly<Record<number, string>> = { 0x81: 'email', 0x82: 'dns', 0x86: 'url' };
const STRING_TAGS = new Set([0x0c, 0x13, 0x14, 0x16]);
const SUBJECT_ATTRIBUTE_OIDS = [...new Set(Object.values(CSR_ATTRIBUTE_OIDS))];
const CURVES: Readonly<Record<string, string>> = {
  prime256v1: 'P-256',
  secp384r1: 'P-384',
  secp521r1: 'P-521',
};

/** What the DER reader takes from a request, when everything in it is of a form it reads. */
interface DirectReading {
  tbs: Buffer;
  signature: Buffer;
  algorithm: string;
  hash: string | null;
  subject: { oid: string; value: string }[];
  attributeOids: string[];
  challenge?: string;
  sans: { type: string; value: string }[];
  ekus: string[];
}

/** A request form the direct reading leaves to @peculiar/x509 (not an error in the request). */
class Unusual extends Error {}

const textOf = (buf: Buffer, node: Node | undefined): string => {
  if (!node || !STRING_TAGS.has(node.tag)) throw new Unusual();
  return contentOf(buf, node).toString(node.tag === 0x0c ? 'utf8' : 'latin1');
};

/** The direct reading of a PKCS#10 request (RFC 2986), or null when it holds a form read only by @peculiar/x509. */
function readDirect(der: Buffer): DirectReading | null {
  try {
    const outer = readNode(der, 0);
    if (outer.tag !== 0x30 || outer.end !== der.length) return null;
    const [info, signatureAlgorithm, signature, ...rest] = children(der, outer);
    if (rest.length > 0 || info?.tag !== 0x30 || signature?.tag !== 0x03) return null;
    const algorithm = oidOf(der, children(der, signatureAlgorithm)[0]);
    if (!(algorithm in NODE_SIGNATURES)) return null;
    const [version, subjectNode, , attributes, ...more] = children(der, info);
    if (version?.tag !== 0x02 || subjectNode?.tag !== 0x30 || more.length > 0) return null;
    const subject: DirectReading['subject'] = [];
    for (const rdn of children(der, subjectNode))
      for (const pair of children(der, rdn)) {
        const [type, value] = children(der, pair);
        subject.push({ oid: oidOf(der, type), value: textOf(der, value) });
      }
    const reading: DirectReading = {
      tbs: bytesOf(der, info),
      // BIT STRING: the first content byte counts unused bits (0 for signatures).
      signature: contentOf(der, signature).subarray(1),
      algorithm,
      hash: NODE_SIGNATURES[algorithm],
      subject,
      attributeOids: [],
      sans: [],
      ekus: [],
    };
    if (attributes && attributes.tag !== 0xa0) return null;
    let sanSeen = false;
    let ekuSeen = false;
    for (const attribute of attributes ? children(der, attributes) : []) {
      const [type, values] = children(der, attribute);
      const oid = oidOf(der, type);
      reading.attributeOids.push(oid);
      const [value] = children(der, values);
      if (oid === OID_CHALLENGE_PASSWORD) reading.challenge ??= textOf(der, value);
      if (oid !== OID_EXTENSION_REQUEST || !value) continue;
      for (const extension of children(der, value)) {
        const parts = children(der, extension);
        const extensionOid = oidOf(der, parts[0]);
        const octets = contentOf(der, parts[parts.length - 1]);
        if (extensionOid === OID_SAN && !sanSeen) {
          sanSeen = true;
          for (const name of children(octets, readNode(octets, 0))) {
            const sanType = SAN_TYPES[name.tag];
            if (!sanType) return null;
            reading.sans.push({ type: sanType, value: contentOf(octets, name).toString('latin1') });
          }
        } else if (extensionOid === OID_EKU && !ekuSeen) {
          ekuSeen = true;
          for (const usage of children(octets, readNode(octets, 0))) reading.ekus.push(oidOf(octets, usage));
        }
      }
    }
    return reading;
  } catch {
    // An unusual form (Unusual) or a malformed request: @peculiar/x509 reads or refuses it.
    return null;
  }
}

/**
 * A CSR received over EST (RFC 7030 4.2), read with the DER reader SCEP uses and verified with
 * Node's crypto: @peculiar/x509's ASN.1 parse of a request and its extensions cost about 1 ms of
 * CPU, more than the rest of an enrollment here. Requests with forms the reader leaves alone
 * (other SAN types, RSA-PSS or SHA-1 signatures, non-string names) and the operations that need a
 * full parse (reenroll's names, serverkeygen) use @peculiar/x509, parsed once on first use.
 */
export class EstCsr {
  private parsed?: x509.Pkcs10CertificateRequest;
  private keyRead = false;
  private key: KeyObject | null = null;

  private constructor(
    readonly der: Buffer,
    private readonly direct: DirectReading | null,
  ) {}

  /**
   * Reads a request; throws when the bytes are not a PKCS#10 request. `direct: false` reads it
   * with @peculiar/x509 only (the specs compare both readings).
   */
  static parse(der: Uint8Array, { direct = true } = {}): EstCsr {
    const buffer = Buffer.from(der.buffer, der.byteOffset, der.byteLength);
    const csr = new EstCsr(buffer, direct ? readDirect(buffer) : null);
    if (!csr.direct || !csr.publicKey()) csr.peculiar();
    return csr;
  }

  /** Whether the DER reader read the request (false: @peculiar/x509 did). */
  get readDirectly(): boolean {
    return this.direct !== null;
  }

  /** The request parsed by @peculiar/x509 (once). */
  peculiar(): x509.Pkcs10CertificateRequest {
    this.parsed ??= new x509.Pkcs10CertificateRequest(this.der);
    return this.parsed;
  }

  /** The request's public key, or null when Node cannot read it (the signature check then says why). */
  publicKey(): KeyObject | null {
    if (!this.keyRead) {
      this.keyRead = true;
      try {
        const info = children(this.der, readNode(this.der, 0))[0];
        const spki = children(this.der, info)[2];
        this.key = spkiKeyObject(Buffer.from(bytesOf(this.der, spki)));
      } catch {
        this.key = null;
      }
    }
    return this.key;
  }

  /** RFC 2986: whether the request is signed by the key it carries. */
  async signatureValid(): Promise<boolean> {
    const key = this.publicKey();
    if (this.direct && key) {
      if (!signatureFitsKey(this.direct.algorithm, key)) return false;
      try {
        return verifySignature(this.direct.hash, this.direct.tbs, key, this.direct.signature);
      } catch {
        return false;
      }
    }
    return this.peculiar()
      .verify()
      .catch(() => false);
  }

  /** The challengePassword attribute (PKCS#9), if it has one. */
  challengePassword(): string | undefined {
    if (this.direct) return this.direct.challenge;
    const attribute = this.peculiar().getAttribute(OID_CHALLENGE_PASSWORD);
    return attribute instanceof x509.ChallengePasswordAttribute ? attribute.password : undefined;
  }

  /** The subject and SANs, as the reenroll rule compares them with the client certificate's. */
  holderNames(): HolderNames {
    return holderNames(this.peculiar());
  }

  /** What the CSR policy reads: key, names, requested EKUs and attributes. */
  facts(): CsrFacts {
    const key =
      this.publicKey() ??
      createPublicKey({ key: Buffer.from(this.peculiar().publicKey.rawData), format: 'der', type: 'spki' });
    const direct = this.direct;
    const csr = direct ? undefined : this.peculiar();
    const commonName = direct
      ? direct.subject.find((field) => field.oid === OID_CN)?.value
      : csr!.subjectName.getField('CN')[0];
    const sans = direct
      ? direct.sans
      : holderNames(csr!).sans.map((entry) => {
          const colon = entry.indexOf(':');
          return { type: entry.slice(0, colon), value: entry.slice(colon + 1) };
        });
    const ekus = direct
      ? direct.ekus
      : (
          csr!.extensions.find(
            (e): e is x509.ExtendedKeyUsageExtension => e instanceof x509.ExtendedKeyUsageExtension,
          )?.usages ?? []
        ).map(String);
    const subjectOids = SUBJECT_ATTRIBUTE_OIDS.filter((oid) =>
      direct
        ? direct.subject.some((field) => field.oid === oid && field.value.trim() !== '')
        : csr!.subjectName.getField(oid).some((value) => value.trim() !== ''),
    );
    return {
      ...keyFacts(key),
      ...(commonName ? { commonName } : {}),
      sanCount: sans.length,
      sans,
      ekus,
      attributeOids: [
        ...subjectOids,
        ...(direct ? direct.attributeOids : csr!.attributes.map((attribute) => attribute.type)),
      ],
    };
  }
}

function keyFacts(key: KeyObject): Pick<CsrFacts, 'keyAlgorithm' | 'rsaBits' | 'curve' | 'keyName'> {
  const details = key.asymmetricKeyDetails ?? {};
  const type = key.asymmetricKeyType;
  const keyAlgorithm =
    type === 'rsa' || type === 'rsa-pss'
      ? 'RSA'
      : type === 'ec'
        ? 'EC'
        : type === 'ed25519'
          ? 'Ed25519'
          : String(type);
  const curve = details.namedCurve ? (CURVES[details.namedCurve] ?? details.namedCurve) : undefined;
  return {
    keyAlgorithm,
    ...(details.modulusLength ? { rsaBits: details.modulusLength } : {}),
    ...(curve ? { curve } : {}),
    keyName:
      keyAlgorithm === 'RSA'
        ? `RSA-${details.modulusLength}`
        : keyAlgorithm === 'EC'
          ? `ECDSA-${(curve ?? '').replace('-', '')}`
          : keyAlgorithm,
  };
}

/** The subject and SANs of a CSR or a certificate, as the reenroll rule compares them. */
export function holderNames(item: x509.Pkcs10CertificateRequest | x509.X509Certificate): HolderNames {
  const san = item.extensions.find(
    (e): e is x509.SubjectAlternativeNameExtension => e instanceof x509.SubjectAlternativeNameExtension,
  );
  return {
    subject: item.subjectName.toString(),
    sans: (san?.names.toJSON() ?? []).map((name) => `${name.type}:${name.value}`),
  };
}

/** OpenSSL's short names of the attributes Node prints in a certificate's subject. */
const SUBJECT_SHORT_NAMES: Readonly<Record<string, string>> = {
  '2.5.4.3': 'CN',
  '2.5.4.5': 'serialNumber',
  '2.5.4.6': 'C',
  '2.5.4.7': 'L',
  '2.5.4.8': 'ST',
  '2.5.4.10': 'O',
  '2.5.4.11': 'OU',
  '0.9.2342.19200300.100.1.25': 'DC',
  '1.2.840.113549.1.9.1': 'emailAddress',
};
/** Values Node prints as they are (nothing RFC 2253 escapes, no control or non-ASCII characters). */
const PLAIN_VALUE = /^[A-Za-z0-9._@:/()'?*-]+(?: [A-Za-z0-9._@:/()'?*-]+)*$/;

/**
 * The DER, serial and subject of an issued certificate (PEM), as Node's `X509Certificate` gives
 * them (`serialNumber` lower-cased, `subject` lines joined by ", "): read with the DER reader,
 * since constructing an X509Certificate cost about a tenth of an enrollment's CPU here. A subject
 * with anything else than single-valued RDNs of the usual attributes and plain values is left to
 * Node.
 */
export function issuedCertificateFacts(pem: string): { der: Buffer; serialHex: string; subject: string } {
  const der = Buffer.from(pem.replace(/-----[^-]+-----|\s/g, ''), 'base64');
  try {
    const tbs = children(der, children(der, readNode(der, 0))[0]);
    const at = tbs[0].tag === 0xa0 ? 1 : 0;
    if (tbs[at].tag !== 0x02 || tbs[at + 4].tag !== 0x30) throw new Unusual();
    let serial = contentOf(der, tbs[at]);
    while (serial.length > 1 && serial[0] === 0) serial = serial.subarray(1);
    const fields: string[] = [];
    for (const rdn of children(der, tbs[at + 4])) {
      const pairs = children(der, rdn);
      if (pairs.length !== 1) throw new Unusual();
      const [type, value] = children(der, pairs[0]);
      const name = SUBJECT_SHORT_NAMES[oidOf(der, type)];
      const text = textOf(der, value);
      if (!name || !PLAIN_VALUE.test(text)) throw new Unusual();
      fields.push(`${name}=${text}`);
    }
    return { der, serialHex: serial.toString('hex'), subject: fields.join(', ') };
  } catch {
    const issued = new X509Certificate(der);
    return {
      der,
      serialHex: issued.serialNumber.toLowerCase(),
      subject: issued.subject.replace(/\n/g, ', '),
    };
  }
}
