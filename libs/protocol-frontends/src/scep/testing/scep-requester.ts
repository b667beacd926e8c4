import { execFileSync } from 'node:child_process';
import { createHash, createPrivateKey, randomBytes, sign } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { algorithm, context, integer, octetString, oid, printableString, sequence, setOf, tlv } from '../der';

const openssl = (args: string[], input?: Buffer): Buffer =>
  execFileSync('openssl', args, { stdio: [input ? 'pipe' : 'ignore', 'pipe', 'pipe'], input });

/**
 * A SCEP requester for tests, the way RFC 8894's appendix builds messages with OpenSSL: keys,
 * CSRs (with a challengePassword attribute), the self-signed signer certificate and the
 * pkcsPKIEnvelope come from the openssl CLI (`openssl cms -encrypt`); only the outer SignedData,
 * whose SCEP signed attributes the CLI cannot add, is assembled here.
 */
export class ScepRequester {
  readonly keyPath: string;
  readonly certPath: string;

  constructor(
    private readonly dir: string,
    readonly name: string,
    readonly keyType: 'rsa' | 'ec' = 'rsa',
  ) {
    this.keyPath = join(dir, `${name}.key`);
    this.certPath = join(dir, `${name}.crt`);
    openssl(
      keyType === 'rsa'
        ? ['genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048', '-out', this.keyPath]
        : ['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', this.keyPath],
    );
    this.remakeCertificate();
  }

  /** (Re)makes the self-signed certificate of the key, as sscep does on every run. */
  remakeCertificate(): void {
    openssl([
      'req',
      '-x509',
      '-new',
      '-key',
      this.keyPath,
      '-subj',
      `/CN=${this.name}`,
      '-days',
      '2',
      '-out',
      this.certPath,
    ]);
  }

  /** A DER PKCS#10 request for this key (CN only), with a challengePassword attribute when given. */
  csr(challenge?: string, commonName = this.name): Buffer {
    const config = join(this.dir, `${this.name}.cnf`);
    // The subject in the config, not -subj: with -subj openssl drops the attributes section.
    writeFileSync(
      config,
      `[req]\ndistinguished_name=dn\nattributes=attrs\nprompt=no\n[dn]\nCN=${commonName}\n[attrs]\n${challenge ? `challengePassword=${challenge}\n` : ''}`,
    );
    return openssl(['req', '-new', '-key', this.keyPath, '-config', config, '-outform', 'DER']);
  }

  /** `openssl cms -encrypt` of content to a recipient certificate (PEM path) with a cipher flag. */
  envelope(content: Buffer, recipientPem: string, cipher = '-aes256'): Buffer {
    const recipient = join(this.dir, `recipient-${randomBytes(4).toString('hex')}.pem`);
    writeFileSync(recipient, recipientPem);
    return openssl(['cms', '-encrypt', '-binary', '-outform', 'DER', cipher, recipient], content);
  }

  /**
   * The pkiMessage (RFC 8894 3.2): SignedData over the envelope, signed by `signer` (default this
   * requester's self-signed certificate) with transactionID, messageType and senderNonce.
   */
  pkiMessage(input: {
    messageType: string;
    envelope: Buffer;
    transactionId?: string;
    /** Send the transactionID as a UTF8String (RFC 8894 3.2.1.1 allows it) rather than a PrintableString. */
    transactionIdUtf8?: boolean;
    senderNonce?: Buffer;
    digest?: 'sha256' | 'sha384' | 'sha1';
    /** The signature's own algorithm (default rsaEncryption, or ecdsa-with-SHA256 for an EC key) and hash. */
    signature?: { algorithm: string; hash: 'sha1' | 'sha256' };
    signerCertPath?: string;
    signerKeyPath?: string;
    tamper?: boolean;
    /** The encapsulated content's type (default id-data, the only one RFC 8894 3.2 allows). */
    eContentType?: string;
  }): Buffer {
    const certDer = openssl(['x509', '-in', input.signerCertPath ?? this.certPath, '-outform', 'DER']);
    const key = createPrivateKey(readFileSync(input.signerKeyPath ?? this.keyPath));
    const digest = input.digest ?? 'sha256';
    const digestOid = {
      sha256: '2.16.840.1.101.3.4.2.1',
      sha384: '2.16.840.1.101.3.4.2.2',
      sha1: '1.3.14.3.2.26',
    }[digest];
    const attr = (type: string, value: Buffer) => sequence(oid(type), setOf(value));
    const signedAttrs = setOf(
      attr('1.2.840.113549.1.9.3', oid('1.2.840.113549.1.7.1')),
      attr('1.2.840.113549.1.9.4', octetString(createHash(digest).update(input.envelope).digest())),
      attr('2.16.840.1.113733.1.9.2', printableString(input.messageType)),
      attr(
        '2.16.840.1.113733.1.9.7',
        input.transactionIdUtf8
          ? tlv(0x0c, Buffer.from(input.transactionId ?? this.transactionId(), 'utf8'))
          : printableString(input.transactionId ?? this.transactionId()),
      ),
      attr('2.16.840.1.113733.1.9.5', octetString(input.senderNonce ?? randomBytes(16))),
    );
    const signature = sign(input.signature?.hash ?? digest, signedAttrs, key);
    if (input.tamper) signature[signature.length - 1] ^= 0xff;
    const certificate = asn1js.fromBER(certDer).result as asn1js.Sequence;
    const tbs = (certificate.valueBlock.value[0] as asn1js.Sequence).valueBlock.value;
    const at = tbs[0].idBlock.tagClass === 3 ? 1 : 0; // v1 certificates have no [0] version
    const issuerAndSerial = sequence(
      Buffer.from(tbs[at + 2].valueBeforeDecodeView),
      Buffer.from(tbs[at].valueBeforeDecodeView),
    );
    const signerInfo = sequence(
      integer(1),
      issuerAndSerial,
      algorithm(digestOid),
      Buffer.concat([Buffer.from([0xa0]), signedAttrs.subarray(1)]),
      algorithm(
        input.signature?.algorithm ??
          (this.keyType === 'ec' ? '1.2.840.10045.4.3.2' : '1.2.840.113549.1.1.1'),
      ),
      octetString(signature),
    );
    return sequence(
      oid('1.2.840.113549.1.7.2'),
      context(
        0,
        sequence(
          integer(1),
          setOf(algorithm(digestOid)),
          sequence(
            oid(input.eContentType ?? '1.2.840.113549.1.7.1'),
            context(0, octetString(input.envelope)),
          ),
          context(0, certDer),
          setOf(signerInfo),
        ),
      ),
    );
  }

  transactionId(): string {
    return createHash('sha256').update(readFileSync(this.keyPath)).digest('hex');
  }
}

/** A CertRep verified by `openssl cms -verify`, with its SCEP signed attributes (read with pkijs). */
export function readCertRep(
  dir: string,
  der: Buffer,
): {
  messageType?: string;
  pkiStatus?: string;
  failInfo?: string;
  transactionId?: string;
  transactionIdTag?: number;
  recipientNonce?: Buffer;
  content: Buffer;
} {
  const file = join(dir, `certrep-${randomBytes(4).toString('hex')}.der`);
  writeFileSync(file, der);
  const content = openssl(['cms', '-verify', '-noverify', '-inform', 'DER', '-in', file, '-binary']);
  const signed = new pkijs.SignedData({
    schema: new pkijs.ContentInfo({ schema: asn1js.fromBER(der).result }).content,
  });
  const attributes = signed.signerInfos[0].signedAttrs?.attributes ?? [];
  const value = (suffix: string) =>
    attributes.find((a) => a.type === `2.16.840.1.113733.1.9.${suffix}`)?.values[0];
  const text = (suffix: string) => (value(suffix) as asn1js.PrintableString | undefined)?.valueBlock.value;
  const nonce = value('6') as asn1js.OctetString | undefined;
  return {
    messageType: text('2'),
    pkiStatus: text('3'),
    failInfo: text('4'),
    transactionId: text('7'),
    /** The ASN.1 universal tag of the transactionID: 19 PrintableString, 12 UTF8String. */
    transactionIdTag: (value('7') as asn1js.BaseBlock | undefined)?.idBlock.tagNumber,
    ...(nonce ? { recipientNonce: Buffer.from(nonce.getValue()) } : {}),
    content,
  };
}
