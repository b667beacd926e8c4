import { createHash, webcrypto, X509Certificate } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import {
  AuditRecord,
  EST_OPERATION_SEGMENTS,
  EstProfileOutcome,
  legacyEstCode,
  ProfileEkuName,
} from '@certlane/contracts';
import {
  ClientCertificateCheck,
  GroupCommit,
  PresentedTls,
  SqlExecutor,
  verifyClientCertificate,
} from '@certlane/platform';
import {
  EstKeyEncryptionKeyRow,
  EstKeyEncryptionKeyStore,
  EstProfileRow,
  EstProfileStore,
} from '@certlane/protocol-frontends-data-access';
import {
  base64Body,
  basicChallenge,
  CertificateProfileRules,
  certsOnly,
  channelBindingProblem,
  csrAttrs,
  csrPolicyProblems,
  enrolledEkus,
  decodeCsrBody,
  EST_SERVERKEYGEN_APPROVAL_REFUSAL,
  estApprovalAnswer,
  EstApprovalOutcome,
  estApprovalReferenceKey,
  csrSha256,
  keyEncryptionKeyRefusal,
  parseBasicAuthorization,
  parseTrustBundle,
  reenrollProblems,
  EstPasswordKdf,
  scryptOnThreadpool,
  TrustBundle,
  verifyEstBasicCredentials,
} from '@certlane/protocol-frontends-domain';
import { RevocationVerdict, revocationRefusal } from '../client-certificate-status';
import { csrAmbiguity } from '../der-reader';
import { CoalescedCounter } from './coalesced-counter';
import { EstCsr, holderNames, issuedCertificateFacts } from './est-csr';
import { EstKekBox } from './est-kek-box';
import { KeyDelivery, keyDelivery } from './est-key-delivery';
import {
  envelopeToKek,
  envelopeToRsaKey,
  generateServerKey,
  KeygenSigner,
  keygenSignerProblem,
  KeyPart,
  OID_SIGNED_DATA,
  PKCS8_PART,
  SERVER_GENERATED_KEY_PART,
  serverKeygenMultipart,
  signKeyPackage,
} from './est-server-keygen';

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

/**
 * An EST request as the server sees it, whichever listener received it, with what the client
 * presented on its TLS connection (ADR 0061): the certificates it sent and the tls-exporter.
 */
export interface EstHttpRequest extends Partial<PresentedTls> {
  method: string;
  /** `/.well-known/est[-mtls]/[<path_id>/]<operation>`, no query string. */
  path: string;
  authorization?: string;
  /** The body as text (EST bodies are base64 or PEM). */
  body?: string;
}

/** Who an authenticated request is: the rate-limit principal, and the client certificate over mTLS. */
interface EstClient {
  principal: string;
  certificate?: X509Certificate;
  /** Its request is already counted in the rate window (Basic counts before the KDF runs). */
  counted?: boolean;
  /** Why the client certificate it presented on `/.well-known/est/` did not authenticate it (Basic did). */
  certificateRefusal?: string;
}

/** A presented client certificate judged: the client it authenticates, or why not (with whom to blame). */
type CertificateVerdict = { ok: true; client: EstClient } | { ok: false; principal: string; reason: string };

export interface EstHttpResponse {
  status: number;
  headers: Record<string, string>;
  body?: string;
}

export interface EstServerDeps {
  executor: SqlExecutor;
  /**
   * Writes the audit records of one outcome (one transaction), then ticks the profile's counter
   * of it; resolves once both are committed (the service batches concurrent ticks, ADR 0061).
   */
  audit(
    records: readonly AuditRecord[],
    tick: { profileId: string; outcome: EstProfileOutcome },
  ): Promise<void>;
  /** Issues a certificate for a CSR through the profile's issuer: the leaf PEM. */
  issue(input: {
    csrPem: string;
    profile: EstProfileRow;
    /** The certificate profile asks for must-staple (RFC 7633 TLS feature status_request). */
    mustStaple: boolean;
    /** The certificate profile's validity in days; the issuer's default when absent. */
    validityDays?: number;
    /** The leaf's extended key usages under the certificate profile; the issuer's default when absent. */
    extendedKeyUsage?: ProfileEkuName[];
    /** The certificate a renewal renews (PEM): issuance stores the new one as its next version. */
    renewsCertificatePem?: string;
  }): Promise<{ certificatePem: string }>;
  /**
   * Issuance's enrollment approvals (ADR 0065), for a certificate profile with
   * `requires_approval`: opens the approval of a CSR, or finds the one the same `referenceKey`
   * opened, and says where it stands (with the certificate once issued, on every ask).
   */
  approval?(input: {
    csrPem: string;
    profile: EstProfileRow;
    referenceKey: string;
    reference: Record<string, string>;
    principal: string;
    mustStaple: boolean;
    validityDays?: number;
    extendedKeyUsage?: ProfileEkuName[];
    /** The certificate a renewal renews (PEM): issuance stores the new one as its next version. */
    renewsCertificatePem?: string;
  }): Promise<EstApprovalOutcome>;
  /** The CA certificates of the profile's issuer, issuing CA first (cacerts, RFC 7030 4.1). */
  caCertificates(profile: EstProfileRow): Promise<string[]>;
  /**
   * The rules of the EST profile's certificate profile (csrattrs, the CSR policy), or null when it
   * names none.
   */
  certificateProfile(profile: EstProfileRow): Promise<CertificateProfileRules | null>;
  /**
   * The EST server's certificate and key, which sign server-generated keys sent encrypted (RFC
   * 7030 4.4.2). Without it serverkeygen answers only unencrypted keys.
   */
  keygenSigner?(): Promise<KeygenSigner>;
  /**
   * Opens the profiles' key-encryption keys (RFC 7030 4.4.1.1, sealed at rest). Without it a
   * DecryptKeyIdentifier is refused.
   */
  keyEncryptionKeys?: EstKekBox;
  /**
   * The revocation status of a verified client certificate (shared with SCEP): `issuers` (the
   * presented chain and the anchors) is read only when the status is not cached. Without it
   * revocation is not checked.
   */
  clientRevocation?(
    fingerprint: string,
    leaf: X509Certificate,
    issuers: () => readonly X509Certificate[],
  ): Promise<RevocationVerdict>;
  /** The KDF Basic passwords are checked with (scrypt on the threadpool); tests count its runs. */
  passwordKdf?: EstPasswordKdf;
  now?: () => Date;
}

const DEFAULT_PATH_ID = 'default';
const PKCS7_CERTS_ONLY = 'application/pkcs7-mime; smime-type=certs-only';
const OPERATIONS = new Set<string>(EST_OPERATION_SEGMENTS.filter((segment) => segment !== 'fullcmc'));

const failedOf = (operation: string): EstProfileOutcome =>
  operation === 'simplereenroll'
    ? 'est_simple_reenroll_failed'
    : operation === 'serverkeygen'
      ? 'est_server_keygen_failed'
      : 'est_simple_enroll_failed';
const successOf = (operation: string): EstProfileOutcome =>
  operation === 'simplereenroll'
    ? 'est_simple_reenroll_success'
    : operation === 'serverkeygen'
      ? 'est_server_keygen_success'
      : 'est_simple_enroll_success';

const answer = (status: number, body?: string, headers: Record<string, string> = {}): EstHttpResponse => ({
  status,
  headers: body === undefined ? headers : { 'Content-Type': 'text/plain; charset=utf-8', ...headers },
  ...(body === undefined ? {} : { body }),
});
const base64Answer = (contentType: string, der: Uint8Array): EstHttpResponse => ({
  status: 200,
  headers: { 'Content-Type': contentType, 'Content-Transfer-Encoding': 'base64' },
  body: base64Body(der),
});

/**
 * The EST server (RFC 7030, RFC 8951; issue 20, ADRs 0058 and 0061): cacerts, simpleenroll,
 * simplereenroll, csrattrs and serverkeygen (on profiles that enable it, 404 otherwise) per
 * profile, over HTTP Basic under `/.well-known/est/<path_id>/...` and over a client certificate
 * checked against the profile's trust bundle under `/.well-known/est-mtls/<path_id>/...` (the
 * profile `default` without a segment); reenroll renews only the certificate that authenticates
 * it; channel binding (tls-exporter) when the profile requires it; the per-principal rate limit,
 * typed audit and per-profile counters.
 */
export class EstServer {
  /** This replica's rate-window increments, written in batches (ADR 0061). */
  private readonly rateWindows: CoalescedCounter<{ profileId: string; principal: string; windowStart: Date }>;

  /**
   * Profile reads of concurrent requests, one statement per batch (ADR 0066); each request's
   * profile comes from a read started after it arrived, so an update is seen as before.
   */
  private readonly profiles: GroupCommit<string, EstProfileRow | null>;

  constructor(private readonly deps: EstServerDeps) {
    const store = new EstProfileStore(deps.executor);
    this.profiles = new GroupCommit((pathIds) => store.byPathIds(pathIds));
    this.rateWindows = new CoalescedCounter((batch) =>
      Promise.all(
        batch.map(({ fields, count }) =>
          store.countRequest(fields.profileId, fields.principal, fields.windowStart, count),
        ),
      ),
    );
  }

  async handle(request: EstHttpRequest): Promise<EstHttpResponse> {
    const route = /^\/\.well-known\/(est|est-mtls)\/(?:([a-z0-9][a-z0-9_-]{0,62})\/)?([a-z]+)$/.exec(
      request.path,
    );
    if (!route || !OPERATIONS.has(route[3])) return answer(404, 'unknown EST path\n');
    const [, base, pathId = DEFAULT_PATH_ID, operation] = route;
    const mtlsPath = base === 'est-mtls';
    const expected = operation === 'cacerts' || operation === 'csrattrs' ? 'GET' : 'POST';
    if (request.method !== expected && !(expected === 'GET' && request.method === 'HEAD'))
      return answer(405, `use ${expected}\n`, { Allow: expected === 'GET' ? 'GET, HEAD' : 'POST' });
    const profile = await this.profiles.write(pathId);
    if (!profile) return answer(404, 'unknown EST profile\n');
    if (mtlsPath && !profile.auth_methods.includes('mtls'))
      return answer(404, 'this profile has no mutual-TLS path\n');
    const now = (this.deps.now ?? (() => new Date()))();
    // RFC 7030 4.1.1: cacerts is answered without client authentication.
    if (operation === 'cacerts') {
      const pems = await this.deps.caCertificates(profile);
      return base64Answer(
        PKCS7_CERTS_ONLY,
        certsOnly(pems.map((pem) => new x509.X509Certificate(pem).rawData).map((raw) => new Uint8Array(raw))),
      );
    }
    if (operation === 'serverkeygen' && !profile.serverkeygen_enabled)
      return answer(404, 'server key generation is not available for this profile\n');

    const failed = failedOf(operation);
    const client = await this.authenticate(profile, request, operation, mtlsPath, now);
    if ('status' in client) return client;
    const { principal, certificate: presented } = client;

    let rules: CertificateProfileRules | null;
    if (client.counted) rules = await this.deps.certificateProfile(profile);
    else {
      // The rate window and the certificate profile's rules are independent round trips: both at once.
      let requests: number;
      [requests, rules] = await Promise.all([
        this.countRequest(profile, principal, now),
        this.deps.certificateProfile(profile),
      ]);
      if (requests > profile.rate_limit_per_minute)
        return this.rateLimited(profile, principal, operation, now);
    }

    if (operation === 'csrattrs') {
      const der = csrAttrs(rules?.required_csr_attributes ?? [], {
        channelBinding: profile.channel_binding_required,
        keyAlgorithms: rules?.allowed_key_algorithms ?? [],
      });
      // RFC 7030 4.5.2: no attributes to ask for may be answered with 204.
      if (der.length === 2) return answer(204);
      return base64Answer('application/csrattrs', der);
    }

    const decoded = decodeCsrBody(request.body ?? '');
    if (!decoded.ok) {
      await this.outcome(profile, failed, principal, operation, 'failure', { reason: decoded.reason });
      return answer(400, `${decoded.reason}\n`);
    }
    let csr: EstCsr;
    try {
      csr = EstCsr.parse(decoded.der);
    } catch {
      await this.outcome(profile, failed, principal, operation, 'failure', {
        reason: 'unparseable CSR',
      });
      return answer(400, 'the body is not a PKCS#10 request\n');
    }
    const ambiguity = csrAmbiguity(csr.der);
    if (ambiguity) {
      await this.outcome(profile, failed, principal, operation, 'failure', { reason: ambiguity });
      return answer(400, `the CSR is ambiguous: ${ambiguity}\n`);
    }
    // RFC 7030 4.2.1 / RFC 2986: the request must be signed by the key it carries. serverkeygen
    // replaces that key, and 4.4.1 says the server "MUST ignore the public key values and signature".
    if (operation !== 'serverkeygen' && !(await csr.signatureValid())) {
      await this.outcome(profile, failed, principal, operation, 'failure', {
        reason: 'bad CSR signature',
      });
      return answer(400, 'the CSR signature does not verify\n');
    }
    // RFC 7030 3.5 (tls-exporter, RFC 9266, for TLS 1.3): the CSR proves it was made for this connection.
    if (profile.channel_binding_required) {
      const problem = channelBindingProblem(csr.challengePassword(), request.tls_exporter);
      if (problem) {
        await this.outcome(profile, 'est_auth_failed_channel_binding', principal, operation, 'denied', {
          reason: problem,
        });
        return answer(403, `${problem}\n`);
      }
    }
    // RFC 7030 4.2.2: reenroll renews the certificate that authenticates the request, names unchanged.
    if (operation === 'simplereenroll') {
      const problems = presented
        ? reenrollProblems(csr.holderNames(), holderNames(new x509.X509Certificate(presented.raw)))
        : client.certificateRefusal
          ? [
              `simplereenroll renews the client certificate of the request, and it was refused: ${client.certificateRefusal}`,
            ]
          : [
              `simplereenroll renews the client certificate of the request: present it, here or under /.well-known/est-mtls/${profile.path_id}/simplereenroll`,
            ];
      if (problems.length > 0) {
        await this.outcome(profile, failed, principal, operation, 'failure', { problems });
        return answer(presented ? 400 : 403, `${problems.join('; ')}\n`);
      }
    }
    const facts = csr.facts();
    const problems = csrPolicyProblems(facts, rules);
    if (problems.length > 0) {
      await this.outcome(profile, 'est_csr_policy_violation', principal, operation, 'failure', {
        problems,
      });
      return answer(400, `the CSR violates the profile's policy: ${problems.join('; ')}\n`);
    }
    const validityDays = rules?.validity_days ?? undefined;
    const mustStaple = rules?.must_staple === true;
    const extendedKeyUsage = enrolledEkus(rules, facts);
    // RFC 7030 4.2.2: reenroll renews the client certificate, so the inventory gets its next version.
    const renewsCertificatePem = operation === 'simplereenroll' ? presented?.toString() : undefined;
    if (rules?.requires_approval) {
      if (operation === 'serverkeygen') {
        await this.outcome(profile, failed, principal, operation, 'failure', {
          reason: EST_SERVERKEYGEN_APPROVAL_REFUSAL,
        });
        return answer(400, `${EST_SERVERKEYGEN_APPROVAL_REFUSAL}\n`);
      }
      return this.heldForApproval(profile, operation, principal, decoded.der, {
        validityDays,
        mustStaple,
        extendedKeyUsage,
        renewsCertificatePem,
      });
    }
    let delivery: KeyDelivery | undefined;
    let signer: KeygenSigner | undefined;
    let kekRow: EstKeyEncryptionKeyRow | undefined;
    if (operation === 'serverkeygen') {
      const chosen = keyDelivery(
        profile,
        csr.peculiar(),
        facts,
        presented,
        this.deps.keyEncryptionKeys !== undefined,
      );
      if ('problem' in chosen) {
        await this.outcome(profile, failed, principal, operation, 'failure', { reason: chosen.problem });
        return answer(400, `${chosen.problem}\n`);
      }
      delivery = chosen;
      if (delivery.kind === 'symmetric') {
        const keyIdHex = delivery.keyId.toString('hex');
        const row = await new EstKeyEncryptionKeyStore(this.deps.executor).byId(keyIdHex);
        const refusal = keyEncryptionKeyRefusal(
          keyIdHex,
          row && { profileId: row.profile_id, revoked: row.revoked_at !== null },
          profile.id,
        );
        if (refusal) {
          await this.outcome(profile, failed, principal, operation, 'failure', { reason: refusal });
          return answer(400, `${refusal}\n`);
        }
        kekRow = row!;
      }
      if (delivery.kind !== 'unencrypted') {
        // RFC 7030 4.4.2: the key package is signed by this server. A signer that cannot sign it
        // (none configured, unreadable, an Ed25519 TLS key) refuses the request before anything is
        // issued: a certificate issued and recorded for a key nobody receives would be an orphan.
        let problem: string | null;
        try {
          if (!this.deps.keygenSigner) throw new Error('no signing key is configured');
          signer = await this.deps.keygenSigner();
          problem = keygenSignerProblem(signer);
        } catch (error) {
          problem = `the keygen signing key could not be read: ${(error as Error).message?.slice(0, 300)}`;
        }
        if (problem) {
          await this.outcome(profile, failed, principal, operation, 'failure', { reason: problem });
          return answer(500, `server key generation cannot sign the key package: ${problem}\n`);
        }
      }
    }
    // Held only in this call: never stored, logged or audited.
    const generated = delivery ? await generateServerKey(csr.peculiar(), delivery.shape) : undefined;
    let certificatePem: string;
    try {
      ({ certificatePem } = await this.deps.issue({
        csrPem: generated?.csrPem ?? csrPem(decoded.der),
        profile,
        mustStaple,
        ...(validityDays ? { validityDays } : {}),
        ...(extendedKeyUsage ? { extendedKeyUsage } : {}),
        ...(renewsCertificatePem ? { renewsCertificatePem } : {}),
      }));
    } catch (error) {
      generated?.privateKeyPkcs8.fill(0);
      await this.outcome(profile, failed, principal, operation, 'failure', {
        reason: (error as Error).message?.slice(0, 300) ?? 'issuance failed',
      });
      return answer(500, 'issuance failed\n');
    }
    const issued = issuedCertificateFacts(certificatePem);
    const certificate = certsOnly([new Uint8Array(issued.der)]);
    const issuedDetails = { serial_hex: issued.serialHex, subject: issued.subject };
    const success = successOf(operation);
    if (generated && delivery) {
      let multipart: ReturnType<typeof serverKeygenMultipart>;
      try {
        let keyPart: KeyPart;
        if (delivery.kind !== 'unencrypted') {
          // RFC 7030 4.4.2: signed by the server that generated it, then enveloped to the named key.
          const signed = signKeyPackage(generated.privateKeyPkcs8, signer!);
          try {
            keyPart = {
              contentType: SERVER_GENERATED_KEY_PART,
              der:
                delivery.kind === 'symmetric'
                  ? this.envelopeToKek(signed, kekRow!, delivery.keyId)
                  : envelopeToRsaKey(signed, delivery.recipientSpki, {
                      contentType: OID_SIGNED_DATA,
                      recipientKeyId: delivery.keyId,
                    }),
            };
          } finally {
            signed.fill(0);
          }
        } else {
          keyPart = { contentType: PKCS8_PART, der: generated.privateKeyPkcs8 };
        }
        multipart = serverKeygenMultipart(keyPart, certificate);
      } catch (error) {
        // Issued and recorded already, but the key cannot be delivered: audited with the serial.
        await this.outcome(profile, failed, principal, operation, 'failure', {
          ...issuedDetails,
          reason: `the key package could not be built: ${(error as Error).message?.slice(0, 300)}`,
        });
        return answer(500, 'server key generation failed\n');
      } finally {
        generated.privateKeyPkcs8.fill(0);
      }
      await this.outcome(profile, success, principal, operation, 'success', issuedDetails);
      return { status: 200, headers: { 'Content-Type': multipart.contentType }, body: multipart.body };
    }
    await this.outcome(profile, success, principal, operation, 'success', issuedDetails);
    return base64Answer(PKCS7_CERTS_ONLY, certificate);
  }

  /**
   * RFC 7030 4.2.3 (ADR 0065): a request under a certificate profile that requires approval waits
   * in an enrollment approval of issuance, keyed by the request, so the client's repeat of the
   * same request polls it: 202 with Retry-After while pending (`est_enrollment_pending`), the
   * certificate once issued (again on every repeat; the operation's `_success`), refused once
   * rejected, expired or failed (its `_failed`); each audited with the approval id.
   */
  private async heldForApproval(
    profile: EstProfileRow,
    operation: string,
    principal: string,
    csrDer: Uint8Array,
    rules: {
      validityDays: number | undefined;
      mustStaple: boolean;
      extendedKeyUsage: ProfileEkuName[] | undefined;
      renewsCertificatePem?: string;
    },
  ): Promise<EstHttpResponse> {
    const failed = failedOf(operation);
    if (!this.deps.approval) {
      await this.outcome(profile, failed, principal, operation, 'failure', {
        reason: 'approvals are not reachable from this server',
      });
      return answer(500, 'approvals are not reachable from this server\n');
    }
    let outcome: EstApprovalOutcome;
    try {
      outcome = await this.deps.approval({
        csrPem: csrPem(csrDer),
        profile,
        referenceKey: estApprovalReferenceKey({ profileId: profile.id, operation, principal, csrDer }),
        reference: { est_profile: profile.path_id, operation, csr_sha256: csrSha256(csrDer) },
        principal,
        mustStaple: rules.mustStaple,
        ...(rules.validityDays ? { validityDays: rules.validityDays } : {}),
        ...(rules.extendedKeyUsage ? { extendedKeyUsage: rules.extendedKeyUsage } : {}),
        ...(rules.renewsCertificatePem ? { renewsCertificatePem: rules.renewsCertificatePem } : {}),
      });
    } catch (error) {
      await this.outcome(profile, failed, principal, operation, 'failure', {
        reason: `the approval request failed: ${(error as Error).message?.slice(0, 300)}`,
      });
      return answer(500, 'the approval request failed\n');
    }
    const decided = estApprovalAnswer(outcome);
    const details = { approval_id: outcome.approvalId };
    switch (decided.kind) {
      case 'pending':
        // Every held answer is an outcome of its own (spec 6.4 counts it): accepted, not decided.
        await this.outcome(profile, 'est_enrollment_pending', principal, operation, 'success', {
          ...details,
          retry_after_seconds: decided.retryAfterSeconds,
        });
        return answer(
          202,
          `the enrollment waits for approval ${outcome.approvalId}; send the same request again later\n`,
          {
            'Retry-After': String(decided.retryAfterSeconds),
          },
        );
      case 'refused':
        await this.outcome(profile, failed, principal, operation, 'failure', {
          ...details,
          reason: decided.message,
        });
        return answer(decided.status, `${decided.message}\n`);
      case 'issued': {
        const issued = issuedCertificateFacts(decided.certificatePem);
        await this.outcome(profile, successOf(operation), principal, operation, 'success', {
          ...details,
          serial_hex: issued.serialHex,
          subject: issued.subject,
        });
        return base64Answer(PKCS7_CERTS_ONLY, certsOnly([new Uint8Array(issued.der)]));
      }
    }
  }

  /** RFC 7030 4.4.1.1: the signed key package enveloped to the key-encryption key, opened only for this. */
  private envelopeToKek(signed: Uint8Array, row: EstKeyEncryptionKeyRow, keyId: Buffer): Uint8Array {
    const kek = this.deps.keyEncryptionKeys!.open(row.id, row.key_sealed);
    try {
      return envelopeToKek(signed, kek, keyId, { contentType: OID_SIGNED_DATA });
    } finally {
      kek.fill(0);
    }
  }

  /**
   * Who the request is (ADR 0061): on `/.well-known/est-mtls/` the client certificate alone. On
   * `/.well-known/est/` a client certificate authenticates when the profile takes certificates and
   * it verifies, chain and revocation (RFC 7030 3.3.2; RFC clients reenroll there), sent alone or
   * with Basic credentials (curl --cert -u, estclient -c -u; 3.2.3: HTTP authentication "in
   * addition to" TLS). One that does not verify leaves the request to Basic, which challenges
   * (401) or checks the credentials; only a profile without Basic refuses it (403).
   */
  private async authenticate(
    profile: EstProfileRow,
    request: EstHttpRequest,
    operation: string,
    mtlsPath: boolean,
    now: Date,
  ): Promise<EstClient | EstHttpResponse> {
    const certificateCounts =
      mtlsPath || (profile.auth_methods.includes('mtls') && (request.client_certificates ?? []).length > 0);
    if (!certificateCounts) return this.basic(profile, request, operation, now);
    const verdict = await this.certificateVerdict(profile, request, now);
    if (verdict.ok) return verdict.client;
    if (!mtlsPath && profile.auth_methods.includes('basic')) {
      const client = await this.basic(profile, request, operation, now);
      return 'status' in client ? client : { ...client, certificateRefusal: verdict.reason };
    }
    // RFC 7030 3.3.2: refused, 403: there is no HTTP challenge a client could answer.
    await this.outcome(profile, 'est_auth_failed_mtls', verdict.principal, operation, 'denied', {
      reason: verdict.reason,
    });
    return answer(403, `client certificate refused: ${verdict.reason}\n`);
  }

  /**
   * RFC 7030 3.2.3: Basic over the TLS channel; the first request without credentials gets the
   * challenge. RFC 7617 4 (ADR 0058 amendment): every attempt counts in the rate window of the
   * profile's Basic credential before its password is checked, whatever username it names, so
   * guesses past `rate_limit_per_minute` are 429 without running the KDF. The check itself runs
   * scrypt off the event loop, once whether the username matches or not.
   */
  private async basic(
    profile: EstProfileRow,
    request: EstHttpRequest,
    operation: string,
    now: Date,
  ): Promise<EstClient | EstHttpResponse> {
    const realm = `certlane EST ${profile.path_id}`;
    if (!profile.auth_methods.includes('basic'))
      return answer(
        403,
        `this profile authenticates by client certificate: present one (the listener must ask for it), here or under /.well-known/est-mtls/${profile.path_id}/\n`,
      );
    const credentials = parseBasicAuthorization(request.authorization);
    if (!credentials)
      return answer(401, 'authentication required\n', { 'WWW-Authenticate': basicChallenge(realm) });
    // The credential guessed is the profile's (it has one username): a guess under any username
    // counts against it, so neither random usernames nor the count tell which username is right.
    const credential = `basic:${profile.basic_username ?? ''}`;
    const claimed = `basic:${credentials.username}`;
    if ((await this.countRequest(profile, credential, now)) > profile.rate_limit_per_minute)
      return this.rateLimited(profile, claimed, operation, now);
    const valid = await verifyEstBasicCredentials(
      credentials,
      { username: profile.basic_username, passwordHash: profile.basic_password_hash },
      this.deps.passwordKdf ?? scryptOnThreadpool,
    );
    if (!valid) {
      await this.outcome(profile, 'est_auth_failed_basic', claimed, operation, 'denied');
      return answer(401, 'authentication failed\n', { 'WWW-Authenticate': basicChallenge(realm) });
    }
    return { principal: credential, counted: true };
  }

  /**
   * RFC 7030 3.3.2: the client certificate of the TLS connection, checked against the profile's
   * trust bundle (the listener requests one and verifies nothing, ADR 0061), then its revocation
   * status. Not audited here: the caller refuses it or leaves the request to Basic.
   */
  private async certificateVerdict(
    profile: EstProfileRow,
    request: EstHttpRequest,
    now: Date,
  ): Promise<CertificateVerdict> {
    const check = verifiedChain(profile, request.client_certificates ?? [], now);
    if (!check.ok) {
      const leaf = request.client_certificates?.[0];
      return {
        ok: false,
        principal: leaf ? `mtls:${fingerprintOf(leaf)}` : 'mtls:anonymous',
        reason: check.reason,
      };
    }
    const principal = `mtls:${check.fingerprint}`;
    // RFC 5280 6.3: a revocation must refuse the next request, so it is asked on every request
    // (the answers are cached for seconds by the status service), never kept with the chain.
    const bundle = trustBundleOf(profile.trust_bundle_pem ?? '');
    if (this.deps.clientRevocation && bundle.ok) {
      const anchors = bundle.anchors;
      const verdict = await this.deps.clientRevocation(check.fingerprint, check.leaf, () => [
        ...(request.client_certificates ?? [])
          .slice(1)
          .map((der) => new X509Certificate(Buffer.from(der, 'base64'))),
        ...anchors,
      ]);
      const refusal = revocationRefusal(verdict, profile.client_revocation_unknown);
      if (refusal) return { ok: false, principal, reason: refusal };
    }
    return { ok: true, client: { principal, certificate: check.leaf } };
  }

  /** Counts a request of `principal` in the current one-minute window: its running count there. */
  private countRequest(profile: EstProfileRow, principal: string, now: Date): Promise<number> {
    const windowStart = new Date(Math.floor(now.getTime() / 60_000) * 60_000);
    return this.rateWindows.add(`${profile.id} ${principal} ${windowStart.toISOString()}`, {
      profileId: profile.id,
      principal,
      windowStart,
    });
  }

  /** Spec 7: over the per-principal rate limit, 429 with Retry-After (seconds to the window's end). */
  private async rateLimited(
    profile: EstProfileRow,
    principal: string,
    operation: string,
    now: Date,
  ): Promise<EstHttpResponse> {
    await this.outcome(profile, 'est_rate_limited', principal, operation, 'denied');
    const windowEnd = Math.floor(now.getTime() / 60_000) * 60_000 + 60_000;
    const retryAfter = Math.max(1, Math.ceil((windowEnd - now.getTime()) / 1000));
    return answer(429, 'too many requests\n', { 'Retry-After': String(retryAfter) });
  }

  /** The typed audit record and the profile's counter of one outcome (spec 6.1, 6.4). */
  private async outcome(
    profile: EstProfileRow,
    code: EstProfileOutcome,
    principal: string,
    operation: string,
    outcome: AuditRecord['outcome'],
    details: Record<string, unknown> = {},
  ): Promise<void> {
    const record: AuditRecord = {
      action: code,
      event_category: code.startsWith('est_auth') || code === 'est_rate_limited' ? 'auth' : 'cert_lifecycle',
      actor_id: principal,
      resource_type: 'est_profile',
      resource_id: profile.id,
      outcome,
      details: { path_id: profile.path_id, operation, ...details },
    };
    // Spec 6.1: the legacy bare enrollment code alongside the typed one (no counter of its own).
    const legacy = legacyEstCode(code);
    await this.deps.audit(legacy ? [{ ...record, action: legacy }, record] : [record], {
      profileId: profile.id,
      outcome: code,
    });
  }
}

/**
 * The parsed anchors of a trust bundle, kept per bundle text: the text is the profile's trust
 * revision (an update or a reload-trust changes it), so parsing it once per revision is enough.
 */
const parsedBundles = new Map<string, TrustBundle>();
const PARSED_BUNDLES_KEPT = 64;
function trustBundleOf(pem: string): TrustBundle {
  let bundle = parsedBundles.get(pem);
  if (!bundle) {
    if (parsedBundles.size >= PARSED_BUNDLES_KEPT) parsedBundles.clear();
    bundle = parseTrustBundle(pem);
    parsedBundles.set(pem, bundle);
  }
  return bundle;
}

/** How long a verified client chain is taken as verified without checking it again. */
const VERIFIED_CHAIN_MS = 60_000;
const VERIFIED_CHAINS_KEPT = 4096;
interface VerifiedChain {
  check: Extract<ClientCertificateCheck, { ok: true }>;
  /** The time span in which every certificate of the chain and every anchor is valid, capped. */
  from: number;
  until: number;
}
/**
 * Verified client chains per trust bundle revision (the parsed bundle object: a new profile trust
 * text, from an update or a reload-trust, parses to a new object and so starts empty), then per
 * profile and presented chain. A kept-alive client presents the same chain on every request, and
 * parsing and verifying it each time cost about a tenth of an enrollment's CPU. An entry lasts
 * VERIFIED_CHAIN_MS, and only while every certificate of the chain and every anchor is valid;
 * refusals are not kept.
 */
const verifiedChains = new WeakMap<TrustBundle, Map<string, VerifiedChain>>();

/** RFC 7030 3.3.2: the presented chain checked against the profile's trust bundle (cached when it passes). */
function verifiedChain(
  profile: EstProfileRow,
  presented: readonly string[],
  now: Date,
): ClientCertificateCheck {
  const bundle = trustBundleOf(profile.trust_bundle_pem ?? '');
  if (!bundle.ok) return { ok: false, reason: `the profile's trust bundle is unusable: ${bundle.reason}` };
  let chains = verifiedChains.get(bundle);
  if (!chains) verifiedChains.set(bundle, (chains = new Map()));
  const key = `${profile.id} ${presented.join(' ')}`;
  const kept = chains.get(key);
  if (kept && kept.from <= now.getTime() && now.getTime() <= kept.until) return kept.check;
  const check = verifyClientCertificate(presented, bundle.anchors, now);
  if (check.ok) {
    if (chains.size >= VERIFIED_CHAINS_KEPT) chains.clear();
    const certificates = [
      ...presented.map((der) => new X509Certificate(Buffer.from(der, 'base64'))),
      ...bundle.anchors,
    ];
    chains.set(key, {
      check,
      from: Math.max(...certificates.map((certificate) => Date.parse(certificate.validFrom))),
      until: Math.min(
        now.getTime() + VERIFIED_CHAIN_MS,
        ...certificates.map((certificate) => Date.parse(certificate.validTo)),
      ),
    });
  } else chains.delete(key);
  return check;
}

const fingerprintOf = (base64Der: string): string =>
  createHash('sha256').update(Buffer.from(base64Der, 'base64')).digest('hex');

/**
 * The PEM of the CSR as received (its DER, verified above): re-encoding the parsed request
 * (`toString('pem')`) serialised it again and cost a fifth of an enrollment's CPU here.
 */
function csrPem(der: Uint8Array): string {
  const lines =
    Buffer.from(der)
      .toString('base64')
      .match(/.{1,64}/g) ?? [];
  return `-----BEGIN CERTIFICATE REQUEST-----\n${lines.join('\n')}\n-----END CERTIFICATE REQUEST-----\n`;
}
