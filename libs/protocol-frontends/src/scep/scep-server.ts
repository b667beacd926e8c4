import { createHash, KeyObject, webcrypto, X509Certificate } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import {
  AuditRecord,
  EnrollmentApprovalOutcome,
  SCEP_DEFAULT_PATH_ID,
  ProfileEkuName,
  ScepMdmStatus,
  ScepProfileOutcome,
} from '@certlane/contracts';
import { ClientCertificateCheck, GroupCommit, SqlExecutor } from '@certlane/platform';
import {
  ScepChallengeReplayStore,
  ScepProfileRow,
  ScepProfileStore,
  ScepTransactionRow,
  ScepIssuedTransaction,
  ScepTransactionStore,
} from '@certlane/protocol-frontends-data-access';
import {
  CertificateProfileRules,
  csrPolicyProblems,
  enrolledEkus,
  looksLikeMdmChallenge,
  MdmChallengeClaims,
  MdmCsrFacts,
  messageTypeName,
  parseCertificateBundle,
  parseTrustBundle,
  reenrollProblems,
  SCEP_FAIL_INFO,
  SCEP_PKI_STATUS,
  scepCapabilities,
  ScepFailInfo,
  verifyChallengePassword,
  verifyMdmChallenge,
} from '@certlane/protocol-frontends-domain';
import { EstCsr, holderNames, issuedCertificateFacts } from '../est/est-csr';
import { parseCsr, ScepCsr } from './csr';
import {
  certRep,
  contentCipherOf,
  degenerateCertificates,
  degenerateCrl,
  envelopeTo,
  openEnvelope,
  parsePkiMessage,
  PkiMessage,
  RaIdentity,
  raIdentity,
  ScepFailure,
} from './scep-cms';
import {
  certificateNotAfter,
  csrAmbiguity,
  csrSubject,
  issuerAndSerialParts,
  readIssuerAndSerialNumber,
  readIssuerAndSubject,
} from '../der-reader';
import { RevocationVerdict, revocationRefusal } from '../client-certificate-status';
import { RaKeyBox } from './scep-ra';
import { mdmCounter } from './scep-profile-admin';

/** An issued certificate as an answer and its audit record need it: DER, serial, subject. */
type IssuedCertificate = ReturnType<typeof issuedCertificateFacts>;

/**
 * The issuer Name and serialNumber (DER) a GetCert names a certificate by (RFC 5652 10.2.4), and
 * its notAfter, past which the retention purge forgets it (ADR 0074).
 */
const issuedName = (
  certificate: IssuedCertificate,
): { certificate_issuer: Buffer; certificate_serial: Buffer; certificate_not_after: Date } => {
  const { issuer, serial } = issuerAndSerialParts(certificate.der);
  return {
    certificate_issuer: Buffer.from(issuer),
    certificate_serial: Buffer.from(serial),
    certificate_not_after: certificateNotAfter(certificate.der),
  };
};

/** How long a profile read serves requests of its path on this process (ADR 0059, amended). */
const PROFILE_CACHE_MS = 1_000;

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

/** A SCEP request as the server sees it, whichever listener received it. */
export interface ScepHttpRequest {
  method: string;
  /** `/scep[/<path_id>]` or `/scep-mtls[/<path_id>]`, no query string. */
  path: string;
  /** The raw query string, without `?`. */
  query?: string;
  body?: Buffer;
  /**
   * The certificates the client presented on its TLS connection (leaf first, base64 DER,
   * unverified: the mTLS path checks them against the profile's trust bundle).
   */
  clientCertificates?: string[];
}

export interface ScepHttpResponse {
  status: number;
  headers: Record<string, string>;
  body?: Buffer;
}

/** A certificate profile as SCEP enforces it (the CSR policy, then how it issues). */
export type ScepCertificateProfile = CertificateProfileRules & {
  validity_days: number | null;
  requires_approval?: boolean;
};

/** How the certificate profile has a certificate issued: validity (days), must-staple and EKUs. */
export interface CertificateProfileIssuance {
  validityDays?: number;
  mustStaple?: boolean;
  extendedKeyUsage?: ProfileEkuName[];
}

export interface ScepServerDeps {
  executor: SqlExecutor;
  raKeys: RaKeyBox;
  /**
   * Writes what one outcome leaves behind in one transaction: the issued transaction (`issued`),
   * its counter ticks and its audit record through the outbox (the service commits concurrent
   * outcomes together, ADR 0066). Resolves once committed.
   */
  record(outcome: ScepOutcomeRecord): Promise<void>;
  /**
   * Issues a certificate for a CSR through the profile's issuer (into the inventory, source SCEP),
   * with what the certificate profile asks: its validity and must-staple (RFC 7633).
   */
  issue(input: {
    csrPem: string;
    profile: ScepProfileRow;
    transactionId: string;
    issuance: CertificateProfileIssuance;
    /** The certificate a renewal renews (PEM): issuance stores the new one as its next version. */
    renewsCertificatePem?: string;
  }): Promise<{ certificatePem: string }>;
  /**
   * The rules of the SCEP profile's certificate profile (the CSR policy, validity, must-staple,
   * approval), or null when it names none.
   */
  certificateProfile?(profile: ScepProfileRow): Promise<ScepCertificateProfile | null>;
  /**
   * Issuance's approvals of external enrollments (ADR 0065), for a profile with
   * `approval_required`: `request` opens (or, for the same transaction, finds) the cert_issuance
   * approval of a CSR; `outcome` says where it stands, with the certificate once issued.
   */
  approvals?: {
    request(input: {
      csrPem: string;
      profile: ScepProfileRow;
      transactionId: string;
      messageType: 'pkcsreq' | 'renewalreq';
      principal: string;
      issuance: CertificateProfileIssuance;
      /** The certificate a RenewalReq renews (PEM): issuance stores the new one as its next version. */
      renewsCertificatePem?: string;
    }): Promise<{ approvalId: string }>;
    outcome(approvalId: string): Promise<EnrollmentApprovalOutcome>;
    /**
     * Withdraws an approval `request` opened that no transaction holds (its transactionID was
     * taken by a racing request): rejected as its requester, `principal`, so no approver issues a
     * certificate no one can pick up. Best effort.
     */
    withdraw(approvalId: string, principal: string, reason: string): Promise<void>;
  };
  /** The CA certificates of the profile's issuer, issuing CA first. */
  caCertificates(profile: ScepProfileRow): Promise<string[]>;
  /**
   * The device-state hook of an MDM profile (`device_state_url`): whether the device the MDM
   * challenge names may enroll. Absent or a profile without a hook: every device may.
   */
  deviceState?(profile: ScepProfileRow, claims: MdmChallengeClaims): Promise<boolean>;
  /** The current CRL (DER) of the profile's issuer (GetCRL), or null when it publishes none. */
  crl?(profile: ScepProfileRow): Promise<Buffer | null>;
  /**
   * Checks a presented client chain against trust anchors (the platform's mutual-TLS check,
   * shared with EST). Without it the `/scep-mtls` paths authorise nobody.
   */
  verifyClientCertificate?(
    presented: readonly string[],
    anchors: readonly X509Certificate[],
    now: Date,
  ): ClientCertificateCheck;
  /**
   * The revocation status of a client certificate that passed `verifyClientCertificate` (shared
   * with EST, `client-certificate-status.ts`): `issuers` (the presented chain and the anchors) is
   * read only when the status is not cached. Without it revocation is not checked.
   */
  clientRevocation?(
    fingerprint: string,
    leaf: X509Certificate,
    issuers: () => readonly X509Certificate[],
  ): Promise<RevocationVerdict>;
  now?: () => Date;
}

/** A client chain `verifyClientCertificate` accepted, with the trust anchors it was checked against. */
type VerifiedClient = Extract<ClientCertificateCheck, { ok: true }> & { anchors: readonly X509Certificate[] };

const PATH = /^\/scep(-mtls)?(?:\/([a-z0-9][a-z0-9_-]{0,62}))?(?:\/pkiclient\.exe)?\/?$/;
const PKI_MESSAGE = 'application/x-pki-message';
const MAX_MESSAGE_BYTES = 256 * 1024;

const text = (status: number, body: string, headers: Record<string, string> = {}): ScepHttpResponse => ({
  status,
  headers: { 'Content-Type': 'text/plain; charset=utf-8', ...headers },
  body: Buffer.from(body),
});

type FailFn = (failInfo: ScepFailInfo, reason: string, authFailure?: boolean) => Outcome;

/** What one PKIOperation's outcome writes (see `ScepServerDeps.record`). */
export interface ScepOutcomeRecord {
  /** The typed audit record (spec 6.1); null for outcomes only counted. */
  audit: AuditRecord | null;
  ticks: { profileId: string; outcome: string; count: number }[];
  /** The transaction a SUCCESS issued at once, recorded with the audit record. */
  issued?: ScepIssuedTransaction;
}

/** What a PKIOperation came to, for the CertRep, the audit record and the counter. */
interface Outcome {
  status: 'SUCCESS' | 'FAILURE' | 'PENDING';
  failInfo?: ScepFailInfo;
  reason?: string;
  /** The certificate a SUCCESS answers, read once for the envelope and the audit record. */
  certificate?: IssuedCertificate;
  /** A SUCCESS's degenerate SignedData other than the certificate (GetCRL's CRL). */
  content?: Buffer;
  code: 'scep_pkcsreq' | 'scep_renewalreq' | 'scep_pkcsreq_mdm' | 'scep_renewalreq_mdm' | null;
  counter: ScepProfileOutcome;
  authFailure?: boolean;
  /** The MDM challenge's status (spec 4.9), when the request carried one. */
  mdmStatus?: ScepMdmStatus;
  /** The cert_issuance approval the request waits for (or waited for). */
  approvalId?: string;
  /** The issued transaction, written with the audit record (in its transaction). */
  issued?: ScepIssuedTransaction;
}

/**
 * The SCEP server (RFC 8894; issue 21, ADR 0059): GetCACaps, GetCACert and PKIOperation (GET with
 * a base64 `message`, POST with the DER body) per profile (`/scep/<path_id>`, `default` on
 * `/scep`). PKCSReq authorised by the challenge password in the CSR, RenewalReq by the
 * certificate being renewed; CertRep SUCCESS with the certificate enveloped to the requester, or
 * FAILURE with failInfo.
 */
export class ScepServer {
  /** The opened RA of each profile, by its sealed key: a rotation seals a new one and misses here. */
  private readonly ras = new Map<
    string,
    { sealed: string; raKey: KeyObject; raDer: Buffer; ra: RaIdentity }
  >();

  /**
   * Profiles by path id, read at most once a second per path: a request costs one statement
   * fewer. Changes made through this process are seen at once (`forget`); other replicas see them
   * within a second.
   */
  private readonly profiles = new Map<string, { row: ScepProfileRow | null; until: number }>();

  /**
   * Transaction reads of concurrent PKIOperations, one statement per batch (ADR 0066); each
   * request's read starts after it arrived, so it sees every transaction committed before.
   */
  private readonly transactionReads: GroupCommit<
    { profileId: string; transactionId: string },
    ScepTransactionRow | null
  >;

  constructor(private readonly deps: ScepServerDeps) {
    const store = new ScepTransactionStore(deps.executor);
    this.transactionReads = new GroupCommit((keys) => store.getMany(keys));
  }

  /** Drops the cached profiles (a change to one on this process: update, rotation, delete). */
  forget(): void {
    this.profiles.clear();
  }

  private async profile(pathId: string): Promise<ScepProfileRow | null> {
    const now = Date.now();
    const cached = this.profiles.get(pathId);
    if (cached && cached.until > now) return cached.row;
    const row = await new ScepProfileStore(this.deps.executor).byPathId(pathId);
    this.profiles.set(pathId, { row, until: now + PROFILE_CACHE_MS });
    return row;
  }

  private ra(profile: ScepProfileRow): { raKey: KeyObject; raDer: Buffer; ra: RaIdentity } {
    const cached = this.ras.get(profile.id);
    if (cached?.sealed === profile.ra_key_sealed) return cached;
    const raDer = Buffer.from(new x509.X509Certificate(profile.ra_certificate_pem).rawData);
    const opened = {
      sealed: profile.ra_key_sealed,
      raKey: this.deps.raKeys.open(profile.id, profile.ra_key_sealed),
      raDer,
      ra: raIdentity(raDer),
    };
    this.ras.set(profile.id, opened);
    return opened;
  }

  async handle(request: ScepHttpRequest): Promise<ScepHttpResponse> {
    const route = PATH.exec(request.path);
    if (!route || route[2] === 'pkiclient') return text(404, 'unknown SCEP path\n');
    if (request.method !== 'GET' && request.method !== 'POST' && request.method !== 'HEAD')
      return text(405, 'use GET or POST\n', { Allow: 'GET, POST' });
    const operation = new URLSearchParams(request.query ?? '').get('operation');
    // RFC 8894 4.1 defines GET and POST; HEAD reads what GET reads, never a PKIOperation.
    if (request.method === 'HEAD' && operation === 'PKIOperation')
      return text(405, 'PKIOperation takes GET or POST\n', { Allow: 'GET, POST' });
    const [, mtls, pathId = SCEP_DEFAULT_PATH_ID] = route;
    const profile = await this.profile(pathId);
    if (!profile) return text(404, 'unknown SCEP profile\n');
    if (mtls && !profile.mtls_enabled) return text(404, 'mutual TLS is not enabled for this SCEP profile\n');
    const query = new URLSearchParams(request.query ?? '');
    switch (operation) {
      case 'GetCACaps':
        // RFC 8894 3.5.2: one capability per line.
        return text(200, `${scepCapabilities(profile.legacy_algorithms).join('\n')}\n`);
      case 'GetCACert':
        return this.caCert(profile);
      case 'PKIOperation':
        return this.pkiOperation(profile, request, query, Boolean(mtls));
      default:
        return text(400, 'operation must be GetCACaps, GetCACert or PKIOperation (RFC 8894 4.1)\n');
    }
  }

  /** RFC 8894 4.2.1.2: with an RA, a degenerate certificates-only SignedData, the RA first. */
  private async caCert(profile: ScepProfileRow): Promise<ScepHttpResponse> {
    const chain = await this.deps.caCertificates(profile);
    const ders = [profile.ra_certificate_pem, ...chain].map((pem) =>
      Buffer.from(new x509.X509Certificate(pem).rawData),
    );
    return {
      status: 200,
      headers: { 'Content-Type': 'application/x-x509-ca-ra-cert' },
      body: degenerateCertificates(ders),
    };
  }

  private async pkiOperation(
    profile: ScepProfileRow,
    request: ScepHttpRequest,
    query: URLSearchParams,
    mtls: boolean,
  ): Promise<ScepHttpResponse> {
    let der: Buffer;
    if (request.method === 'POST') der = request.body ?? Buffer.alloc(0);
    else {
      // RFC 8894 4.3: base64 of the DER, URL-encoded (URLSearchParams already decoded it; a '+'
      // read as a space is put back, and base64url is accepted too).
      const message = (query.get('message') ?? '').replace(/ /g, '+');
      der = Buffer.from(message, /[-_]/.test(message) ? 'base64url' : 'base64');
    }
    if (der.length === 0 || der.length > MAX_MESSAGE_BYTES) return text(400, 'no pkiMessage\n');
    let message: PkiMessage;
    try {
      message = parsePkiMessage(der);
    } catch (error) {
      return text(400, `not a SCEP pkiMessage: ${(error as Error).message}\n`);
    }
    const { raKey, raDer, ra } = this.ra(profile);
    const outcome = await this.decide(profile, message, ra, raKey, mtls, request.clientCertificates ?? []);
    await this.record(profile, message, outcome);
    let envelope: Buffer | undefined;
    if (outcome.status === 'SUCCESS') {
      const content = outcome.content ?? degenerateCertificates([outcome.certificate!.der]);
      envelope = envelopeTo(message.signerDer, content, message.signerKey, contentCipherOf(message.content));
    }
    const body = certRep({
      status: SCEP_PKI_STATUS[outcome.status],
      ...(outcome.failInfo ? { failInfo: SCEP_FAIL_INFO[outcome.failInfo] } : {}),
      transactionId: message.transactionId,
      transactionIdTag: message.transactionIdTag,
      recipientNonce: message.senderNonce,
      ...(envelope ? { envelope } : {}),
      raDer,
      raKey,
    });
    return { status: 200, headers: { 'Content-Type': PKI_MESSAGE }, body };
  }

  private async decide(
    profile: ScepProfileRow,
    message: PkiMessage,
    ra: RaIdentity,
    raKey: KeyObject,
    mtls: boolean,
    clientCertificates: readonly string[],
  ): Promise<Outcome> {
    const kind = messageTypeName(message.messageType);
    const code: Outcome['code'] =
      kind === 'RenewalReq' ? 'scep_renewalreq' : kind === 'PKCSReq' ? 'scep_pkcsreq' : null;
    const fail: FailFn = (failInfo, reason, authFailure = false) => ({
      status: 'FAILURE',
      failInfo,
      reason,
      code,
      counter: authFailure ? 'scep_auth_failed' : 'scep_failure',
      authFailure,
    });
    // RFC 8894 3.2.1.2: a messageType the server does not know (or a CertRep) is refused.
    if (kind === undefined || kind === 'CertRep')
      return fail('badRequest', `messageType ${message.messageType} is not served`);
    // RFC 8894 3.2 / RFC 5652 5.4: the signature over the signed attributes must verify.
    if (!message.digest) return fail('badAlg', 'unknown digest algorithm');
    if (message.digest.legacy && !profile.legacy_algorithms)
      return fail(
        'badAlg',
        `${message.digest.refused ?? `digest ${message.digest.name}`} is refused on this profile`,
      );
    if (!message.signatureValid) return fail('badMessageCheck', 'the pkiMessage signature does not verify');
    // RFC 8894 3.3.2: a SUCCESS is enveloped to the requester's certificate, by RSA key transport
    // here; every message type is refused alike rather than failing once its answer is made.
    if (message.signerKey.asymmetricKeyType !== 'rsa')
      return fail('badRequest', 'the requester certificate has no RSA key to encrypt the answer to');
    let csrDer: Buffer;
    try {
      csrDer = openEnvelope(message.content, ra, raKey, profile.legacy_algorithms);
    } catch (error) {
      if (error instanceof ScepFailure) return fail(error.failInfo, error.message);
      throw error;
    }
    if (kind === 'CertPoll') return this.poll(profile, message, csrDer, fail);
    if (kind === 'GetCRL') return this.getCrl(profile, fail);
    if (kind === 'GetCert') return this.getCert(profile, csrDer, fail);
    let csr: ScepCsr;
    try {
      csr = parseCsr(csrDer);
    } catch {
      return fail('badRequest', 'the envelope does not hold a PKCS#10 request');
    }
    if (!csr.signatureValid) return fail('badRequest', 'the CSR signature does not verify');
    const ambiguity = csrAmbiguity(csrDer);
    if (ambiguity) return fail('badRequest', `the CSR is ambiguous: ${ambiguity}`);
    const rules =
      profile.certificate_profile_id && this.deps.certificateProfile
        ? await this.deps.certificateProfile(profile)
        : null;
    // EST's reading and policy (key, SAN rules; the certificate profile's key names, EKUs and
    // attributes), with or without a certificate profile: a fleet's shared challenge password
    // must not buy wildcards or hundreds of names.
    const facts = EstCsr.parse(csrDer).facts();
    const problems = csrPolicyProblems(facts, rules);
    if (problems.length > 0) return fail('badRequest', `the CSR violates the policy: ${problems.join('; ')}`);
    const extendedKeyUsage = enrolledEkus(rules, facts);
    const issuance: CertificateProfileIssuance = {
      ...(rules?.validity_days ? { validityDays: rules.validity_days } : {}),
      ...(rules?.must_staple ? { mustStaple: true } : {}),
      ...(extendedKeyUsage ? { extendedKeyUsage } : {}),
    };
    const csrPem = csr.pem;
    const previous = await this.transactionReads.write({
      profileId: profile.id,
      transactionId: message.transactionId,
    });
    // RFC 8894 3.2.1.1: a request sent again (same transactionID, type and signer) gets the same
    // answer, once authorised (below). scepclient derives the transactionID from the key, so a
    // later RenewalReq with the same key, signed by the certificate it got, is a new request.
    const sameRequest =
      previous &&
      previous.message_type === (kind === 'RenewalReq' ? 'renewalreq' : 'pkcsreq') &&
      previous.principal === principalOf(message);
    const challenge = csr.challenge;
    const byMdm = profile.mdm_enabled && challenge !== undefined && looksLikeMdmChallenge(challenge);
    // A one-time MDM challenge is spent by its first sending: the same request sent again (its
    // answer lost) is authorised by that sending, not refused as a replay.
    const mdmResent = byMdm && sameRequest && previous.csr_pem === csrPem;
    // A PKCSReq without a challenge password, signed by an issued certificate rather than a
    // self-signed one, is the renewal of draft-nourse-scep that sscep, Cisco IOS and Windows
    // send: authorised as a RenewalReq is, by the certificate it renews (ADR 0059 amendment).
    const renewal =
      kind === 'RenewalReq' ||
      (kind === 'PKCSReq' && !mtls && challenge === undefined && !selfIssued(message.signerDer));
    let mdm: Outcome['mdmStatus'];
    if (byMdm && !mdmResent) {
      const checked = await this.mdmChallenge(profile, challenge!, {
        commonNames: csr.commonNames,
        sans: facts.sans ?? [],
      });
      mdm = checked.status;
      if (checked.status !== 'success') {
        const mdmCode = kind === 'RenewalReq' ? 'scep_renewalreq_mdm' : 'scep_pkcsreq_mdm';
        return {
          ...fail('badRequest', `MDM challenge ${checked.status}: ${checked.reason}`, true),
          code: mdmCode,
          mdmStatus: mdm,
        };
      }
    }
    if (renewal) {
      const problem = await this.renewalProblem(profile, message, csrDer);
      if (problem)
        return fail(
          problem.failInfo,
          kind === 'RenewalReq' ? problem.reason : `no challenge password, and no renewal: ${problem.reason}`,
          true,
        );
    } else if (mdm || mdmResent) {
      // Authorised by the MDM challenge (at its first sending).
    } else if (mtls) {
      const checked = this.clientCertificate(profile, clientCertificates);
      if (!checked.ok) return fail('badRequest', `client certificate: ${checked.reason}`, true);
      const refusal = await this.clientRevocationRefusal(profile, clientCertificates, checked);
      if (refusal) return fail('badRequest', `client certificate: ${refusal}`, true);
    } else {
      const valid =
        challenge !== undefined &&
        profile.challenge_password_hash !== null &&
        verifyChallengePassword(challenge, profile.challenge_password_hash);
      if (!valid)
        return fail(
          'badRequest',
          challenge === undefined ? 'no challenge password' : 'wrong challenge password',
          true,
        );
    }

    if (previous && sameRequest) {
      if (previous.csr_pem !== csrPem)
        return fail('badRequest', 'the transactionID was used for another request');
      if (previous.status === 'issued')
        return this.success(issuedCertificateFacts(previous.certificate_pem!), code!, mdm);
      if (previous.status === 'rejected') return fail('badRequest', previous.reject_reason ?? 'rejected');
      // RFC 8894 3.3.2: the same request sent again while PENDING is a poll, never a second approval.
      return this.pendingOutcome(profile, previous, fail, (issued) => this.success(issued, code!, mdm), {
        code,
        ...(mdm ? { mdmStatus: mdm } : {}),
      });
    }
    if (profile.approval_required || rules?.requires_approval) {
      // A finished transaction's id may carry a new request (scepclient's RenewalReq reuses its
      // PKCSReq's), which opens its own approval; one still waiting holds its id.
      if (previous?.status === 'pending')
        return fail('badRequest', 'the transactionID is used by another request waiting for approval');
      return this.holdForApproval(
        profile,
        message,
        kind as 'PKCSReq' | 'RenewalReq',
        { csrPem, issuance, renewal },
        fail,
        code,
        mdm,
      );
    }
    let certificatePem: string;
    try {
      ({ certificatePem } = await this.deps.issue({
        csrPem,
        profile,
        transactionId: message.transactionId,
        issuance,
        ...(renewal ? { renewsCertificatePem: renewedCertificatePem(message) } : {}),
      }));
    } catch (error) {
      return fail('badRequest', `issuance failed: ${(error as Error).message?.slice(0, 300) ?? 'error'}`);
    }
    const certificate = issuedCertificateFacts(certificatePem);
    return {
      ...this.success(certificate, code!, mdm),
      // In the audit record's transaction.
      issued: {
        profile_id: profile.id,
        transaction_id: message.transactionId,
        message_type: kind === 'RenewalReq' ? 'renewalreq' : 'pkcsreq',
        csr_pem: csrPem,
        principal: principalOf(message),
        certificate_pem: certificatePem,
        ...issuedName(certificate),
      },
    };
  }

  /** The mTLS path's client chain checked against the profile's trust bundle. */
  private clientCertificate(
    profile: ScepProfileRow,
    presented: readonly string[],
  ): VerifiedClient | Extract<ClientCertificateCheck, { ok: false }> {
    if (!this.deps.verifyClientCertificate)
      return { ok: false, reason: 'mutual TLS is not verified on this listener' };
    const trust = profile.trust_bundle_pem ? parseTrustBundle(profile.trust_bundle_pem) : undefined;
    const anchors = trust?.ok ? trust.anchors : [];
    try {
      const checked = this.deps.verifyClientCertificate(
        presented,
        anchors,
        (this.deps.now ?? (() => new Date()))(),
      );
      return checked.ok ? { ...checked, anchors } : checked;
    } catch {
      return { ok: false, reason: 'the presented certificates do not parse' };
    }
  }

  /**
   * Why a verified client chain is refused for its revocation status under the profile's
   * `client_revocation_unknown` (the check EST makes, RFC 5280 6.3: asked on every request), or null.
   */
  private async clientRevocationRefusal(
    profile: ScepProfileRow,
    presented: readonly string[],
    checked: VerifiedClient,
  ): Promise<string | null> {
    if (!this.deps.clientRevocation) return null;
    const verdict = await this.deps.clientRevocation(checked.fingerprint, checked.leaf, () => [
      ...presented.slice(1).map((der) => new X509Certificate(Buffer.from(der, 'base64'))),
      ...checked.anchors,
    ]);
    return revocationRefusal(verdict, profile.client_revocation_unknown);
  }

  /**
   * RFC 8894 3.3.3 GetCertInitial (CertPoll): the request of the same transactionID, asked by the
   * same signer: its certificate (SUCCESS), PENDING while it waits, FAILURE when refused, and
   * badCertId for a transaction this profile does not know.
   */
  private async poll(
    profile: ScepProfileRow,
    message: PkiMessage,
    content: Buffer,
    fail: FailFn,
  ): Promise<Outcome> {
    let asked: { subject: Buffer };
    try {
      asked = readIssuerAndSubject(content);
    } catch {
      return fail('badRequest', 'the envelope does not hold an IssuerAndSubject');
    }
    const previous = await new ScepTransactionStore(this.deps.executor).get(
      profile.id,
      message.transactionId,
    );
    if (!previous || previous.principal !== principalOf(message))
      return fail('badCertId', 'no request of this transactionID from this signer');
    // The subject must be the request's (byte for byte); the issuer Name is not compared: clients
    // name the CA, the RA or themselves there.
    const requested = Buffer.from(previous.csr_pem.replace(/-----[^-]+-----|\s/g, ''), 'base64');
    if (!csrSubject(requested).equals(asked.subject))
      return fail('badCertId', 'the IssuerAndSubject names another subject than the request');
    const success = (certificate: IssuedCertificate): Outcome => ({
      status: 'SUCCESS',
      certificate,
      code: null,
      counter: 'scep_getcertinitial',
    });
    if (previous.status === 'pending')
      return this.pendingOutcome(profile, previous, fail, success, { code: null });
    if (previous.status === 'rejected') return fail('badRequest', previous.reject_reason ?? 'rejected');
    return success(issuedCertificateFacts(previous.certificate_pem!));
  }

  /**
   * A request of a profile with `approval_required` (ADR 0065): a cert_issuance approval holds
   * its CSR in issuance (one per transaction: issuance finds the one a racing resend opened), the
   * transaction waits, and the answer is PENDING (RFC 8894 3.3.2).
   */
  private async holdForApproval(
    profile: ScepProfileRow,
    message: PkiMessage,
    kind: 'PKCSReq' | 'RenewalReq',
    { csrPem, issuance, renewal }: { csrPem: string; issuance: CertificateProfileIssuance; renewal: boolean },
    fail: FailFn,
    code: Outcome['code'],
    mdm: Outcome['mdmStatus'],
  ): Promise<Outcome> {
    if (!this.deps.approvals) return fail('badRequest', 'approvals are not reachable from this server');
    let approvalId: string;
    try {
      ({ approvalId } = await this.deps.approvals.request({
        csrPem,
        profile,
        transactionId: message.transactionId,
        messageType: kind === 'RenewalReq' ? 'renewalreq' : 'pkcsreq',
        principal: principalOf(message),
        issuance,
        ...(renewal ? { renewsCertificatePem: renewedCertificatePem(message) } : {}),
      }));
    } catch (error) {
      return fail('badRequest', `the approval request failed: ${(error as Error).message?.slice(0, 300)}`);
    }
    const transactions = new ScepTransactionStore(this.deps.executor);
    const messageType = kind === 'RenewalReq' ? 'renewalreq' : 'pkcsreq';
    const principal = principalOf(message);
    const recorded = await transactions.createPending({
      profile_id: profile.id,
      transaction_id: message.transactionId,
      message_type: messageType,
      csr_pem: csrPem,
      principal,
      approval_id: approvalId,
    });
    if (!recorded) {
      // Another request waiting for approval took the transactionID between this one's read and
      // its write (two requests under one id at once, on one replica or two). The same request
      // sent twice at once found the same approval and waits on it; any other is refused, and
      // the approval it opened is withdrawn: no transaction holds it, so no one could pick up
      // what it would issue.
      const holder = await transactions.get(profile.id, message.transactionId);
      const same =
        holder?.status === 'pending' &&
        holder.approval_id === approvalId &&
        holder.principal === principal &&
        holder.message_type === messageType &&
        holder.csr_pem === csrPem;
      if (!same) {
        const reason = 'the transactionID is used by another request waiting for approval';
        if (holder?.approval_id !== approvalId)
          await this.deps.approvals
            .withdraw(approvalId, principal, `withdrawn: ${reason}`)
            .catch(() => undefined);
        return { ...fail('badRequest', reason), approvalId };
      }
    }
    return {
      status: 'PENDING',
      code,
      counter: 'scep_pending',
      approvalId,
      ...(mdm ? { mdmStatus: mdm } : {}),
    };
  }

  /**
   * A pending transaction asked again (GetCertInitial, or the request resent): issuance's approval
   * says where it stands. Issued: the certificate, kept with the transaction (resends and GetCert
   * find it); rejected, expired or not issuable: FAILURE badRequest, kept too; else PENDING.
   */
  private async pendingOutcome(
    profile: ScepProfileRow,
    pending: ScepTransactionRow,
    fail: FailFn,
    success: (certificate: IssuedCertificate) => Outcome,
    base: Pick<Outcome, 'code' | 'mdmStatus'>,
  ): Promise<Outcome> {
    const approvalId = pending.approval_id;
    if (!approvalId || !this.deps.approvals)
      return fail('badRequest', 'the request has no approval to wait for');
    let outcome: EnrollmentApprovalOutcome;
    try {
      outcome = await this.deps.approvals.outcome(approvalId);
    } catch (error) {
      return fail('badRequest', `the approval could not be read: ${(error as Error).message?.slice(0, 300)}`);
    }
    const transactions = new ScepTransactionStore(this.deps.executor);
    if (outcome.state === 'pending')
      return { status: 'PENDING', ...base, counter: 'scep_pending', approvalId };
    if (outcome.state === 'issued' && outcome.certificate_pem) {
      const certificate = issuedCertificateFacts(outcome.certificate_pem);
      await transactions.finish(profile.id, pending.transaction_id, {
        status: 'issued',
        certificate_pem: outcome.certificate_pem,
        ...issuedName(certificate),
      });
      return { ...success(certificate), approvalId };
    }
    const reason = `approval ${approvalId} ${outcome.state}${outcome.reason ? `: ${outcome.reason}` : ''}`;
    await transactions.finish(profile.id, pending.transaction_id, {
      status: 'rejected',
      reject_reason: reason,
    });
    return { ...fail('badRequest', reason), approvalId };
  }

  /**
   * RFC 8894 3.3.4 GetCert: the envelope holds an IssuerAndSerialNumber; a certificate this
   * profile issued answers SUCCESS with it, anything else badCertId.
   */
  private async getCert(profile: ScepProfileRow, content: Buffer, fail: FailFn): Promise<Outcome> {
    let wanted: { issuer: Buffer; serial: Buffer };
    try {
      wanted = readIssuerAndSerialNumber(content);
    } catch {
      return fail('badRequest', 'the envelope does not hold an IssuerAndSerialNumber');
    }
    const certificatePem = await new ScepTransactionStore(this.deps.executor).issuedCertificate(
      profile.id,
      wanted.issuer,
      wanted.serial,
    );
    if (!certificatePem)
      return fail('badCertId', 'no certificate of this issuer and serial from this profile');
    return {
      status: 'SUCCESS',
      certificate: issuedCertificateFacts(certificatePem),
      code: null,
      counter: 'scep_getcert',
    };
  }

  /** RFC 8894 3.3.5 GetCRL: the current CRL of the profile's issuer, in a degenerate SignedData. */
  private async getCrl(profile: ScepProfileRow, fail: FailFn): Promise<Outcome> {
    const crl = await this.deps.crl?.(profile).catch(() => null);
    if (!crl) return fail('badRequest', "the profile's issuer publishes no CRL");
    return { status: 'SUCCESS', content: degenerateCrl(crl), code: null, counter: 'scep_getcrl' };
  }

  private success(
    certificate: IssuedCertificate,
    code: NonNullable<Outcome['code']>,
    mdm: Outcome['mdmStatus'],
  ): Outcome {
    const typed = mdm ? (code === 'scep_renewalreq' ? 'scep_renewalreq_mdm' : 'scep_pkcsreq_mdm') : code;
    return {
      status: 'SUCCESS',
      certificate,
      code: typed,
      counter: typed,
      ...(mdm ? { mdmStatus: mdm } : {}),
    };
  }

  /**
   * An MDM-signed challenge (ADR 0059, docs/scep.md): verified against the profile's MDM
   * certificates, then the per-device rate limit, the one-time use of its `jti` (every replica
   * shares the used ids), and the device-state hook.
   */
  private async mdmChallenge(
    profile: ScepProfileRow,
    token: string,
    csr: MdmCsrFacts,
  ): Promise<{ status: ScepMdmStatus; reason: string }> {
    const anchors = profile.mdm_trust_pem ? parseCertificateBundle(profile.mdm_trust_pem) : undefined;
    const now = (this.deps.now ?? (() => new Date()))();
    const verified = verifyMdmChallenge(token, {
      anchors: anchors?.ok ? anchors.certificates : [],
      audience: profile.mdm_audience ?? '',
      now,
      csr,
    });
    if (!verified.ok) return { status: verified.status, reason: verified.reason };
    const { claims } = verified;
    const store = new ScepProfileStore(this.deps.executor);
    const windowStart = new Date(Math.floor(now.getTime() / 60_000) * 60_000);
    if (
      (await store.countRequest(profile.id, `mdm:${claims.sub}`, windowStart)) > profile.rate_limit_per_minute
    )
      return {
        status: 'rate_limited',
        reason: `device ${claims.sub} is over ${profile.rate_limit_per_minute} requests a minute`,
      };
    if (
      !(await new ScepChallengeReplayStore(this.deps.executor).claim(
        profile.id,
        claims.jti,
        new Date(claims.exp * 1000),
      ))
    )
      return { status: 'replay', reason: `challenge ${claims.jti} was used before` };
    if (
      profile.device_state_url &&
      this.deps.deviceState &&
      !(await this.deps.deviceState(profile, claims).catch(() => false))
    )
      return { status: 'device_state_failed', reason: `the device-state hook refused ${claims.sub}` };
    return { status: 'success', reason: 'verified' };
  }

  /**
   * RFC 8894 3.3.1.2: a RenewalReq is signed with the certificate being renewed, which must be
   * one of this CA's, valid now, not revoked (as a client certificate is checked: the profile's
   * `client_revocation_unknown` decides when its status cannot be learned), and name exactly what
   * the CSR names (subject and SubjectAltName, as EST's reenroll, RFC 7030 4.2.2): holding a
   * certificate renews that certificate, it does not buy one for other names.
   */
  private async renewalProblem(
    profile: ScepProfileRow,
    message: PkiMessage,
    csrDer: Buffer,
  ): Promise<{ failInfo: ScepFailInfo; reason: string } | null> {
    const signer = new x509.X509Certificate(message.signerDer);
    const cas = (await this.deps.caCertificates(profile)).map((pem) => new x509.X509Certificate(pem));
    let issuedHere = false;
    for (const ca of cas)
      if (
        signer.issuer === ca.subject &&
        (await signer.verify({ publicKey: ca.publicKey, signatureOnly: true }).catch(() => false))
      )
        issuedHere = true;
    if (!issuedHere)
      return { failInfo: 'badCertId', reason: 'the request is not signed by a certificate of this CA' };
    const now = (this.deps.now ?? (() => new Date()))();
    if (signer.notAfter.getTime() < now.getTime() || signer.notBefore.getTime() > now.getTime())
      return { failInfo: 'badTime', reason: 'the certificate being renewed is not valid now' };
    const names = reenrollProblems(
      holderNames(new x509.Pkcs10CertificateRequest(csrDer)),
      holderNames(signer),
    );
    if (names.length > 0) return { failInfo: 'badRequest', reason: names.join('; ') };
    if (this.deps.clientRevocation) {
      const leaf = new X509Certificate(message.signerDer);
      const verdict = await this.deps.clientRevocation(
        leaf.fingerprint256.replace(/:/g, '').toLowerCase(),
        leaf,
        () => cas.map((ca) => new X509Certificate(Buffer.from(ca.rawData))),
      );
      const refusal = revocationRefusal(verdict, profile.client_revocation_unknown);
      if (refusal) return { failInfo: 'badCertId', reason: `the certificate being renewed: ${refusal}` };
    }
    return null;
  }

  /** The typed audit record and the profile's counter of one PKIOperation (spec 6.1, 6.4). */
  private async record(profile: ScepProfileRow, message: PkiMessage, outcome: Outcome): Promise<void> {
    const ticks = [{ profileId: profile.id, outcome: outcome.counter as string, count: 1 }];
    if (outcome.mdmStatus)
      ticks.push({ profileId: profile.id, outcome: mdmCounter(outcome.mdmStatus), count: 1 });
    const written = { ticks, ...(outcome.issued ? { issued: outcome.issued } : {}) };
    if (!outcome.code) return this.deps.record({ audit: null, ...written });
    const issued = outcome.certificate;
    await this.deps.record({
      ...written,
      audit: {
        action: outcome.code,
        event_category: outcome.authFailure ? 'auth' : 'cert_lifecycle',
        actor_id: principalOf(message),
        resource_type: 'scep_profile',
        resource_id: profile.id,
        outcome: outcome.status === 'SUCCESS' ? 'success' : outcome.authFailure ? 'denied' : 'failure',
        details: {
          path_id: profile.path_id,
          transaction_id: message.transactionId,
          pki_status: outcome.status,
          ...(outcome.mdmStatus ? { mdm_status: outcome.mdmStatus } : {}),
          ...(outcome.approvalId ? { approval_id: outcome.approvalId } : {}),
          ...(outcome.failInfo ? { fail_info: outcome.failInfo, reason: outcome.reason } : {}),
          ...(issued ? { serial_hex: issued.serialHex, subject: issued.subject } : {}),
        },
      },
    });
  }
}

/**
 * Who asked: the SHA-256 of the signer's public key. The key, not its certificate: a requester
 * proves the key by signing, and clients re-make their self-signed certificate between runs
 * (sscep's resume), so a poll or resend names the same requester (RFC 8894 3.3.3).
 */
function principalOf(message: PkiMessage): string {
  const spki = message.signerKey.export({ type: 'spki', format: 'der' });
  return `scep:${createHash('sha256').update(spki).digest('hex').slice(0, 32)}`;
}

/** RFC 8894 3.3.1.2: a RenewalReq is signed by the certificate it renews. */
function renewedCertificatePem(message: PkiMessage): string {
  return new X509Certificate(message.signerDer).toString();
}

/** A signer certificate naming itself as issuer: a requester's self-signed one, not an issued one. */
function selfIssued(der: Buffer): boolean {
  const certificate = new X509Certificate(der);
  return certificate.issuer === certificate.subject;
}
