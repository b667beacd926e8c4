import { verify, X509Certificate } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { createOcspRequest, IssuerHashes, parseCrl, verifyCrl } from '@certlane/pki';

/** What is known of a client certificate's revocation. */
export type RevocationVerdict =
  { status: 'good' } | { status: 'revoked' } | { status: 'unknown'; reason: string };

/** What a profile does with a client certificate whose status cannot be learned. */
export type UnknownRevocationPolicy = 'soft-fail' | 'hard-fail';

/** One of Certlane's own CAs, as `issuance.v1.list-cas` lists it. */
export interface LocalCa {
  issuerId: string;
  caId: string;
  certificate: X509Certificate;
}

export interface ClientCertificateStatusDeps {
  /** Every CA certificate of Certlane's own issuers (the revocation service knows their serials). */
  localCas(): Promise<LocalCa[]>;
  /** The revocation service's OCSP response (DER) about a serial of one of its CAs. */
  localOcsp(ca: LocalCa, serialHex: string): Promise<Buffer>;
  /** An external CRL (a CRL distribution point, http only), bounded in size and time. */
  fetchCrl(url: string): Promise<Buffer>;
  /** An external OCSP responder (the AIA address, http only): the DER response to a DER request. */
  fetchOcsp?(url: string, request: Buffer): Promise<Buffer>;
  now?(): number;
}

export interface ClientCertificateStatusOptions {
  /** How long a verdict about one certificate is reused. */
  verdictTtlMs?: number;
  /** A lookup that takes longer ends as unknown (the request is not held up by a slow responder). */
  lookupTimeoutMs?: number;
  /** How long the list of Certlane's CAs is reused. */
  localCasTtlMs?: number;
  /** How long an external CRL is reused at most (less when its nextUpdate comes sooner). */
  crlTtlMs?: number;
  maxVerdicts?: number;
  maxCrls?: number;
}

const DEFAULTS: Required<ClientCertificateStatusOptions> = {
  verdictTtlMs: 5_000,
  lookupTimeoutMs: 3_000,
  localCasTtlMs: 30_000,
  crlTtlMs: 300_000,
  maxVerdicts: 10_000,
  maxCrls: 64,
};

/** A bounded map of values that expire: the oldest entry goes when it is full. */
class ExpiringCache<V> {
  private readonly entries = new Map<string, { until: number; value: V }>();
  constructor(private readonly max: number) {}
  get(key: string, now: number): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.until > now) return entry.value;
    this.entries.delete(key);
    return undefined;
  }
  set(key: string, value: V, until: number): void {
    this.entries.delete(key);
    if (this.entries.size >= this.max) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { until, value });
  }
  delete(key: string): void {
    this.entries.delete(key);
  }
}

/** Lower-case hex of a serial without leading zero octets (as Certlane's revocation service keys it). */
const canonicalSerial = (hex: string): string => hex.toLowerCase().replace(/^(00)+(?=[0-9a-f]{2})/, '');

/**
 * The revocation status of mutual-TLS client certificates (EST `/.well-known/est-mtls/...`, SCEP
 * `/scep-mtls`), once for both protocols. A certificate issued by one of Certlane's own CAs is
 * looked up in the revocation service over the bus (its OCSP answer for the serial, which the
 * service signs again the moment a certificate is revoked); any other certificate through the
 * CRL distribution points it names (http, bounded size and time, CRL signature checked against
 * the issuer, reused until its nextUpdate and at most `crlTtlMs`), then, when no CRL answers,
 * the OCSP responders of its authority information access. Verdicts are reused for a few
 * seconds per certificate and concurrent checks of one certificate share one lookup, so the
 * enrollment hot path pays a map lookup. What an unknown status means is the caller's policy.
 */
export class ClientCertificateStatus {
  private readonly options: Required<ClientCertificateStatusOptions>;
  private readonly verdicts: ExpiringCache<Promise<RevocationVerdict>>;
  private readonly crls: ExpiringCache<Promise<ReturnType<typeof parseCrl>>>;
  private localCas?: { until: number; cas: Promise<LocalCa[]> };

  constructor(
    private readonly deps: ClientCertificateStatusDeps,
    options: ClientCertificateStatusOptions = {},
  ) {
    this.options = { ...DEFAULTS, ...options };
    this.verdicts = new ExpiringCache(this.options.maxVerdicts);
    this.crls = new ExpiringCache(this.options.maxCrls);
  }

  /**
   * The status of a verified client certificate. `fingerprint` keys the cache; `issuers` (the
   * presented chain and the trust anchors) is read only on a cache miss, to find the issuer.
   */
  check(
    fingerprint: string,
    leaf: X509Certificate,
    issuers: () => readonly X509Certificate[],
  ): Promise<RevocationVerdict> {
    const now = this.now();
    const cached = this.verdicts.get(fingerprint, now);
    if (cached) return cached;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<RevocationVerdict>((resolve) => {
      timer = setTimeout(
        () => resolve({ status: 'unknown', reason: `no answer within ${this.options.lookupTimeoutMs} ms` }),
        this.options.lookupTimeoutMs,
      );
      timer.unref();
    });
    const lookup = this.lookup(leaf, issuers()).finally(() => clearTimeout(timer));
    const verdict = Promise.race([lookup, timeout]).catch((error: unknown): RevocationVerdict => ({
      status: 'unknown',
      reason: `the revocation lookup failed: ${(error as Error).message?.slice(0, 200) ?? 'error'}`,
    }));
    this.verdicts.set(fingerprint, verdict, now + this.options.verdictTtlMs);
    return verdict;
  }

  private now(): number {
    return (this.deps.now ?? Date.now)();
  }

  private async lookup(
    leaf: X509Certificate,
    candidates: readonly X509Certificate[],
  ): Promise<RevocationVerdict> {
    const issuer = candidates.find(
      (candidate) => leaf.checkIssued(candidate) && leaf.verify(candidate.publicKey),
    );
    if (!issuer) return { status: 'unknown', reason: 'the issuer of the client certificate is not at hand' };
    const serial = canonicalSerial(leaf.serialNumber);
    const local = (await this.listLocalCas()).find(
      (ca) =>
        ca.certificate.raw.equals(issuer.raw) ||
        (ca.certificate.subject === issuer.subject && ca.certificate.publicKey.equals(issuer.publicKey)),
    );
    if (local) return ocspVerdict(await this.deps.localOcsp(local, serial), serial);
    const crl = await this.crlVerdict(leaf, issuer, serial);
    if (crl.status !== 'unknown') return crl;
    const ocsp = await this.ocspVerdict(leaf, issuer, serial);
    return ocsp ?? crl;
  }

  /** RFC 6960: the responder the certificate's AIA names, its response signed by the issuer or its delegate. */
  private async ocspVerdict(
    leaf: X509Certificate,
    issuer: X509Certificate,
    serial: string,
  ): Promise<RevocationVerdict | undefined> {
    if (!this.deps.fetchOcsp) return undefined;
    const urls = (
      new x509.X509Certificate(leaf.raw).getExtension(x509.AuthorityInfoAccessExtension)?.ocsp ?? []
    )
      .map((name) => name.value)
      .filter((url) => /^https?:\/\//i.test(url));
    if (urls.length === 0) return undefined;
    const request = createOcspRequest([new IssuerHashes(issuer.raw).certId(serial)]);
    const problems: string[] = [];
    for (const url of urls) {
      try {
        const der = await this.deps.fetchOcsp(url, request);
        const problem = ocspSignatureProblem(der, issuer, this.now());
        if (problem) {
          problems.push(`${url}: ${problem}`);
          continue;
        }
        const verdict = ocspVerdict(der, serial);
        if (verdict.status !== 'unknown') return verdict;
        problems.push(`${url}: ${verdict.reason}`);
      } catch (error) {
        problems.push(`${url}: ${(error as Error).message?.slice(0, 120) ?? 'error'}`);
      }
    }
    return { status: 'unknown', reason: `no usable OCSP answer (${problems.join('; ')})` };
  }

  private listLocalCas(): Promise<LocalCa[]> {
    const now = this.now();
    if (this.localCas && this.localCas.until > now) return this.localCas.cas;
    const cas = this.deps.localCas();
    this.localCas = { until: now + this.options.localCasTtlMs, cas };
    cas.catch(() => (this.localCas = undefined));
    return cas;
  }

  /** RFC 5280 6.3, reduced: a complete CRL from the certificate's distribution points, signed by its issuer. */
  private async crlVerdict(
    leaf: X509Certificate,
    issuer: X509Certificate,
    serial: string,
  ): Promise<RevocationVerdict> {
    const points = new x509.X509Certificate(leaf.raw)
      .getExtension(x509.CRLDistributionPointsExtension)
      ?.distributionPoints.flatMap((point) => point.distributionPoint?.fullName ?? [])
      .map((name) => name.uniformResourceIdentifier)
      .filter((url): url is string => typeof url === 'string' && /^https?:\/\//i.test(url));
    if (!points || points.length === 0)
      return { status: 'unknown', reason: 'the client certificate names no CRL distribution point' };
    const problems: string[] = [];
    for (const url of points) {
      try {
        const crl = await this.crl(url);
        if (!verifyCrl(crl, issuer.raw)) {
          problems.push(`${url}: not signed by the issuer`);
          continue;
        }
        if (crl.nextUpdate && crl.nextUpdate.getTime() < this.now()) {
          problems.push(`${url}: expired`);
          continue;
        }
        return crl.entries.some((entry) => canonicalSerial(entry.serialNumber) === serial)
          ? { status: 'revoked' }
          : { status: 'good' };
      } catch (error) {
        problems.push(`${url}: ${(error as Error).message?.slice(0, 120) ?? 'error'}`);
      }
    }
    return { status: 'unknown', reason: `no usable CRL (${problems.join('; ')})` };
  }

  private crl(url: string): Promise<ReturnType<typeof parseCrl>> {
    const now = this.now();
    const cached = this.crls.get(url, now);
    if (cached) return cached;
    const crl = this.deps.fetchCrl(url).then((der) => parseCrl(der));
    this.crls.set(url, crl, now + this.options.crlTtlMs);
    crl.then(
      (parsed) => {
        const next = parsed.nextUpdate?.getTime();
        if (next !== undefined && next < now + this.options.crlTtlMs)
          this.crls.set(url, crl, Math.max(next, now));
      },
      () => this.crls.delete(url),
    );
    return crl;
  }
}

/** The certStatus of the single response about `serial` in an OCSP response (RFC 6960 4.2.1). */
export function ocspVerdict(der: Uint8Array, serial: string): RevocationVerdict {
  const response = pkijs.OCSPResponse.fromBER(der);
  const status = response.responseStatus.valueBlock.valueDec;
  if (status !== 0 || !response.responseBytes)
    return { status: 'unknown', reason: `the OCSP responder answered status ${status}` };
  const basic = pkijs.BasicOCSPResponse.fromBER(response.responseBytes.response.valueBlock.valueHexView);
  const single = basic.tbsResponseData.responses.find(
    (candidate) =>
      canonicalSerial(Buffer.from(candidate.certID.serialNumber.valueBlock.valueHexView).toString('hex')) ===
      serial,
  );
  if (!single) return { status: 'unknown', reason: 'the OCSP response is about another certificate' };
  // CertStatus ::= CHOICE { good [0], revoked [1], unknown [2] }
  const tag = (single.certStatus as { idBlock: { tagNumber: number } }).idBlock.tagNumber;
  if (tag === 0) return { status: 'good' };
  if (tag === 1) return { status: 'revoked' };
  return { status: 'unknown', reason: 'the OCSP responder does not know the certificate' };
}

const OCSP_SIGNING = '1.3.6.1.5.5.7.3.9';
const SIGNATURE_HASHES: Readonly<Record<string, string>> = {
  '1.2.840.113549.1.1.5': 'sha1',
  '1.2.840.113549.1.1.11': 'sha256',
  '1.2.840.113549.1.1.12': 'sha384',
  '1.2.840.113549.1.1.13': 'sha512',
  '1.2.840.10045.4.1': 'sha1',
  '1.2.840.10045.4.3.2': 'sha256',
  '1.2.840.10045.4.3.3': 'sha384',
  '1.2.840.10045.4.3.4': 'sha512',
};

/**
 * Why an external OCSP response is not to be believed (RFC 6960 4.2.2.2), or null: it must be
 * signed by the issuer, or by a certificate it carries that the issuer signed for OCSPSigning and
 * that is valid now. RSA PKCS#1 v1.5 and ECDSA signatures.
 */
export function ocspSignatureProblem(der: Uint8Array, issuer: X509Certificate, now: number): string | null {
  const response = pkijs.OCSPResponse.fromBER(der);
  if (!response.responseBytes) return null; // an error status: ocspVerdict answers unknown
  const basic = asn1js.fromBER(response.responseBytes.response.valueBlock.valueHexView)
    .result as asn1js.Sequence;
  const [tbs, algorithm, signature, certs] = basic.valueBlock.value;
  const algorithmOid = (
    (algorithm as asn1js.Sequence).valueBlock.value[0] as asn1js.ObjectIdentifier
  ).valueBlock.toString();
  const hash = SIGNATURE_HASHES[algorithmOid];
  if (!hash) return `signature algorithm ${algorithmOid} is not supported`;
  const signers = [issuer];
  if (certs) {
    const list = (certs as asn1js.Constructed).valueBlock.value[0] as asn1js.Sequence;
    for (const item of list.valueBlock.value) {
      const delegate = new X509Certificate(Buffer.from(item.valueBeforeDecodeView));
      const valid =
        new Date(delegate.validFrom).getTime() <= now && now <= new Date(delegate.validTo).getTime();
      if (
        valid &&
        delegate.keyUsage?.includes(OCSP_SIGNING) &&
        delegate.checkIssued(issuer) &&
        delegate.verify(issuer.publicKey)
      )
        signers.push(delegate);
    }
  }
  const data = Buffer.from(tbs.valueBeforeDecodeView);
  const bits = Buffer.from((signature as asn1js.BitString).valueBlock.valueHexView);
  return signers.some((signer) => verify(hash, data, signer.publicKey, bits))
    ? null
    : 'not signed by the issuer or its OCSP delegate';
}

/** Why a verdict refuses the certificate under `policy`, or null when it is accepted. */
export function revocationRefusal(
  verdict: RevocationVerdict,
  policy: UnknownRevocationPolicy,
): string | null {
  if (verdict.status === 'revoked') return 'the client certificate is revoked';
  if (verdict.status === 'unknown' && policy === 'hard-fail')
    return `the client certificate's revocation status is unknown (${verdict.reason})`;
  return null;
}
