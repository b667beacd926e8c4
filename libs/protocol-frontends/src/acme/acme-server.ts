import { createHash, X509Certificate } from 'node:crypto';
import { JWK } from 'jose';
import { AuditAction, AuditRecord, ProfileEkuName } from '@certlane/contracts';
import { SqlExecutor } from '@certlane/platform';
import {
  decodeAll,
  parseCertificate,
  parseCertificates,
  parseCsr,
  PemLabel,
  PkiError,
  publicKeyObject,
} from '@certlane/pki';
import {
  AccountStore,
  AcmeAccountRow,
  AcmeOperationsStore,
  AcmeAuthorizationRow,
  AcmeCertificateRow,
  AcmeChallengeRow,
  AcmeClaimedChallenge,
  AcmeEabKeyRow,
  AcmeOpenOrderState,
  AcmeOrderView,
  CertificateStore,
  CompositeStatement,
  EabKeyStore,
  NoncePool,
  NonceStore,
  RateLimitStore,
  OrderStore,
  profileOfAuthorization,
  rateEventInsert,
  rateSlotGate,
  rateSlotOutcome,
  readRow,
  RowRead,
  validationAttemptInsert,
} from '@certlane/protocol-frontends-data-access';
import {
  ACCOUNT_HASH_PATH,
  authorizationRetryAfterSeconds,
  DnsPersistAccount,
  jwkMatchesKey,
  challengeRetryAfterSeconds,
  ACME_JWS_ALGORITHMS,
  AcmeAuthenticatedRequest,
  AcmeKeyMode,
  AcmeProblem,
  acmeNotFound,
  authenticateAcmeRequest,
  challengeTypesFor,
  ChallengeType,
  AcmeProfileSettings,
  acmeValidityDays,
  checkValidityAtFinalize,
  DEFAULT_ACME_VALIDITY_DAYS,
  RequestedValidity,
  requestedValidity,
  abandonedOrderProblem,
  approvalEndedProblem,
  CertificateProfileRules,
  certificateProfileProblems,
  enrolledEkus,
  checkCsrAgainstOrder,
  CertifiedNames,
  checkIdentifiersForProfile,
  checkExternalAccountBinding,
  checkNewAccountPayload,
  inactiveAccount,
  checkContacts,
  checkKeyChange,
  checkOrderIdentifiers,
  DEFAULT_ACME_LIFETIMES,
  effectiveAuthorizationStatus,
  effectiveOrderStatus,
  jwkThumbprint,
  keyAuthorization,
  nextAuthorizationStatus,
  nextChallengeStatus,
  nextOrderStatus,
  OrderStatus,
  orderEventFromApproval,
  orderEventFromAuthorizations,
  orderExpiry,
  approvalDeadline,
  isRenewalCertId,
  validationRetryDelay,
  RENEWAL_INFO_RETRY_AFTER_SECONDS,
  renewalCertId,
  agreedToCurrentTerms,
  termsAgreedInUpdate,
  termsAgreementProblem,
  TermsRules,
  CERTIFICATE_FORMATS,
  CertificateFormat,
  certificateFormatFor,
  certsOnly,
} from '@certlane/protocol-frontends-domain';
import { AcmeHttpRequest, AcmeHttpResponse, json, problem } from './acme-http';
import { renewalInfoAnswer } from './acme-operations';
import { ApprovalWithdrawal, approvalsOf, endOrdersOfDeactivatedAccount } from './account-deactivation';
import { AcmeProfiles, PROFILE_CACHE_MS } from './acme-profiles';
import { CaaCheck } from './caa-checker';
import { AcmeUrls, locate } from './acme-urls';
import { EstCsr } from '../est/est-csr';
import { EabKeyBox } from './eab-key-box';
import { AcmeObserver } from './acme-metrics';

/** A certificate as issuance issued it. */
export interface AcmeIssuedCertificate {
  issuer_id: string;
  serial_hex: string;
  /** Leaf then chain. */
  full_pem: string;
  not_after: string;
  /** RFC 8555 7.4.2: the leaf with each of its chains to other trust anchors. */
  alternate_full_pems?: string[];
}

/** A certificate profile as ACME enforces it (ADR 0068). */
export type AcmeCertificateProfile = CertificateProfileRules & {
  validity_days: number | null;
  requires_approval?: boolean;
};

/** What the ACME server needs from the issuance service (over the bus in the service). */
export interface AcmeIssuer {
  /**
   * Issues a certificate and records it in the inventory with source ACME, its owner and team, as
   * the next version of `versionOf` (the inventory certificate it renews) when given; answers once
   * both are committed (`issuance.v1.issue-and-record`, ADR 0066), with the inventory id.
   * `mustStaple`: the TLS feature status_request (RFC 7633) the certificate profile asks for.
   */
  issueAndRecord(input: {
    csrPem: string;
    /** What the certificate certifies instead of the CSR's names (RFC 8555 7.4). */
    certified: CertifiedNames;
    issuerId?: string;
    validityDays?: number;
    /** RFC 8555 7.4: the validity the order asked for; notAfter wins over validityDays. */
    notBefore?: Date;
    notAfter?: Date;
    mustStaple?: boolean;
    /** The leaf's extended key usages under the certificate profile; the issuer's default when absent. */
    extendedKeyUsage?: ProfileEkuName[];
    profileId: string;
    owner: string | null;
    team: string | null;
    versionOf?: string;
  }): Promise<AcmeIssuedCertificate & { certificate_id: string }>;
  /** Revokes the serial at its issuer (and in the inventory); whether it was revoked before. */
  revoke(input: {
    issuerId: string;
    serialHex: string;
    reason: string;
  }): Promise<{ alreadyRevoked: boolean; reason: string; revokedAt: Date }>;
  /** The rules and validity of a certificate profile an ACME profile names (ADR 0068). */
  certificateProfile?(id: string): Promise<AcmeCertificateProfile>;
}

/** Where the enrollment approval of an order stands; once issued, with the certificate. */
export type AcmeApprovalOutcome =
  | { state: 'pending' }
  | { state: 'issued'; certificate: AcmeIssuedCertificate; inventoryId: string | null }
  | { state: 'rejected' | 'expired' | 'failed'; reason: string | null };

/**
 * Issuance's approvals of external enrollments (ADR 0065), for certificate profiles requiring
 * approval. Issuance issues the certificate on approval and records it in the inventory.
 */
export interface AcmeApprovals {
  /** Withdraws the approvals of orders its account's deactivation ended (RFC 8555 7.3.6). */
  withdraw: ApprovalWithdrawal;
  /** Opens the approval of an order's CSR, or answers the one already opened for the order. */
  request(input: {
    orderId: string;
    accountId: string;
    profileId: string;
    certificateProfileId: string;
    csrPem: string;
    certified: CertifiedNames;
    issuerId?: string;
    owner: string | null;
    team: string | null;
    validityDays?: number;
    notBefore?: Date;
    notAfter?: Date;
    mustStaple?: boolean;
    extendedKeyUsage?: ProfileEkuName[];
    /** The inventory certificate the order renews (ADR 0068): the issued one is its next version. */
    versionOf?: string;
    /** The latest the approval may wait: the order's expiry, and a CAA check's end. */
    expiresAt: Date;
  }): Promise<{ approvalId: string }>;
  outcome(approvalId: string): Promise<AcmeApprovalOutcome>;
}

/** `remoteAddress`: the address the validator connected to, recorded with the attempt. */
export type ChallengeValidator = (
  challenge: AcmeChallengeRow,
  authorization: AcmeAuthorizationRow,
  keyAuthorization: string,
  /** dns-persist-01: the issuer domain names the challenge listed, and the ordering account. */
  context: { issuerDomainNames: readonly string[]; account?: DnsPersistAccount },
) => Promise<
  (
    | {
        ok: true;
        /** dns-persist-01: the record's persistUntil, past which the authorization must not last. */
        validUntil?: Date;
      }
    | { ok: false; problem: AcmeProblem }
  ) & { remoteAddress?: string }
>;

export interface AcmeServerDependencies {
  /** Runs `work` in one transaction. */
  transaction<T>(work: (executor: SqlExecutor) => Promise<T>): Promise<T>;
  executor: SqlExecutor;
  issuer: AcmeIssuer;
  /** Without it, a finalize under a certificate profile requiring approval is refused. */
  approvals?: AcmeApprovals;
  validate: ChallengeValidator;
  issuerId?: string;
  /** New orders one account may create per hour (across replicas). */
  newOrdersPerHour?: number;
  /** Per client address and hour: new accounts and new orders (RFC 8555 6.6). */
  newAccountsPerIpPerHour?: number;
  newOrdersPerIpPerHour?: number;
  /** Failed validations per account and identifier and hour before new orders for it wait. */
  failedValidationsPerHour?: number;
  /** How long a replica holds a challenge it validates. */
  validationLeaseMs?: number;
  /**
   * How long a client's challenge response waits for the validation's first attempt, so that it
   * can answer with the outcome (ADR 0067 amendment); 0 answers `processing` at once.
   */
  challengeAnswerWaitMs?: number;
  /** Records an audit event (spec 6.1) in the transaction of the change it describes. */
  audit?: (executor: SqlExecutor, record: AuditRecord) => Promise<unknown>;
  /**
   * Adds the outbox write of an audit event to the one statement that makes the change it
   * describes, written when `condition` holds (`CompositeStatement`); `committed` follows the statement.
   */
  auditPart?: (statement: CompositeStatement, condition: string, record: AuditRecord) => void;
  committed?: () => void;
  /** Opens the sealed HMAC keys of external account binding; without it no binding is accepted. */
  eabKeys?: EabKeyBox;
  /** newAccount needs an external account binding (RFC 8555 7.3.4). */
  externalAccountRequired?: boolean;
  /**
   * CAA checking (RFC 8659, RFC 8657) and the server-wide identities (a profile's own replace
   * them); without it, or with no identities for a profile, no CAA check and no dns-persist-01.
   */
  caa?: { check: CaaCheck; identities: readonly string[] };
  /** Reports a failure the client only sees as serverInternal (or not at all: background validation). */
  onBackgroundError?: (error: unknown) => void;
  /** Problems answered, orders, validations and certificates, for the metrics. */
  observe?: AcmeObserver;
  /** renewal-info's explanationURL of revoked certificates (RFC 9773 4.2). */
  revocationExplanationUrl?: string;
  /**
   * RFC 8555 7.1.1: the directory's `meta.termsOfService` (a new account must agree to them) and
   * `meta.website`.
   */
  termsOfService?: string;
  /**
   * RFC 8555 7.3.3: accounts that agreed to other terms than `termsOfService` (or before the URL
   * agreed to was kept) must agree again before newOrder and finalize.
   */
  termsOfServiceReagreement?: boolean;
  website?: string;
}

const HOLD = 'certificateHold';

/** RFC 5280 reason codes revokeCert accepts (RFC 8555 7.6), as issuance spells them (spec 2.16). */
const REVOCATION_REASONS: Record<number, string> = {
  0: 'unspecified',
  1: 'keyCompromise',
  3: 'affiliationChanged',
  4: 'superseded',
  5: 'cessationOfOperation',
};

/** RFC 8555 7.1.2.1: order URLs per page of an account's orders list. */
export const ACCOUNT_ORDERS_PAGE = 1000;

/** RFC 8555 7.4: when a client should poll a processing order again (a person decides it). */
export const ORDER_RETRY_AFTER_SECONDS = 10;

/** RFC 8659 3: how old a CAA check may be when the certificate is issued. */
const CAA_RECHECK_AFTER_MS = 8 * 3600_000;

/** See `challengeAnswerWaitMs`: long enough for a first attempt on a quick network, short for clients. */
const DEFAULT_CHALLENGE_ANSWER_WAIT_MS = 2_000;

/** The challenge types every profile offers; dns-persist-01 is offered per profile. */
const OFFERED_CHALLENGES = ['http-01', 'dns-01', 'tls-alpn-01'] as const;
const WITH_DNS_PERSIST = [...OFFERED_CHALLENGES, 'dns-persist-01'] as const;

type Handler = (
  request: AcmeHttpRequest,
  urls: AcmeUrls,
  id: string | undefined,
  profile: AcmeProfileSettings,
  /** The fourth path segment: the page of an account's orders list. */
  page?: string,
) => Promise<AcmeHttpResponse>;

/**
 * The ACME server (RFC 8555) over the stores of libs/protocol-frontends/data-access: one method,
 * `handle`, answers every `/acme/...` request whichever listener received it. Every answer to a POST
 * and to newNonce carries a fresh `Replay-Nonce`; every error is a problem document.
 */
export class AcmeServer {
  private readonly nonces: NonceStore;
  private readonly noncePool: NoncePool;
  private readonly accounts: AccountStore;
  private readonly orders: OrderStore;
  private readonly certificates: CertificateStore;
  private readonly profiles: AcmeProfiles;

  constructor(private readonly deps: AcmeServerDependencies) {
    this.profiles = new AcmeProfiles(
      deps.executor,
      {
        issuerId: deps.issuerId,
        externalAccountRequired: deps.externalAccountRequired,
        newOrdersPerHour: deps.newOrdersPerHour,
        caaIdentities: deps.caa?.identities,
      },
      PROFILE_CACHE_MS,
    );
    this.nonces = new NonceStore(deps.executor);
    this.noncePool = new NoncePool(this.nonces);
    this.accounts = new AccountStore(deps.executor);
    this.orders = new OrderStore(deps.executor);
    this.certificates = new CertificateStore(deps.executor);
  }

  async handle(request: AcmeHttpRequest): Promise<AcmeHttpResponse> {
    const location = locate(request.origin, request.path);
    let response: AcmeHttpResponse;
    try {
      if (!location) throw acmeNotFound('resource');
      const profile = await this.profiles.get(location.profile);
      if (!profile) throw acmeNotFound(`ACME profile ${location.profile}`);
      response = await this.route(request, new AcmeUrls(location), location.resource, profile);
    } catch (error) {
      if (!(error instanceof AcmeProblem)) this.deps.onBackgroundError?.(error);
      const answered =
        error instanceof AcmeProblem
          ? error
          : new AcmeProblem('serverInternal', 'the server failed to answer');
      this.deps.observe?.problem(answered.type);
      response = problem(answered);
    }
    const urls = location ? new AcmeUrls(location) : null;
    // RFC 8555 7.2 asks for nonces on POST answers; newNonce hands them out. The directory and
    // renewal-info GETs carry none, as Boulder's (Ruby's acme-client before 2.0.16, Debian's 2.0.9,
    // fails on a directory answer with one), and do not spend a stored nonce nobody uses.
    if (request.method.toUpperCase() === 'POST' || location?.resource === 'new-nonce') {
      try {
        response.headers['Replay-Nonce'] = await this.noncePool.issue();
      } catch (error) {
        this.deps.onBackgroundError?.(error);
        this.deps.observe?.problem('serverInternal');
        response = problem(new AcmeProblem('serverInternal', 'the server could not issue a nonce'));
      }
    }
    response.headers['Cache-Control'] = 'no-store';
    if (urls)
      response.headers['Link'] = appendLink(response.headers['Link'], `<${urls.directory()}>;rel="index"`);
    return response;
  }

  private async route(
    request: AcmeHttpRequest,
    urls: AcmeUrls,
    resource: string,
    profile: AcmeProfileSettings,
  ): Promise<AcmeHttpResponse> {
    const [name, id, sub, page, ...rest] = resource.split('/');
    if (rest.length || (page !== undefined && !(name === 'account' && sub === 'orders')))
      throw acmeNotFound('resource');
    const method = request.method.toUpperCase();
    // RFC 8555 6.3: "The server MUST allow GET requests for the directory and newNonce resources
    // ..., in addition to POST-as-GET requests for these resources." A POST is authenticated as
    // any POST-as-GET (its nonce spent, signed by an account or by the key in its header).
    // RFC 9110 9.1: a resource that answers GET answers HEAD (the same headers, no body; the
    // listener leaves the body out). Uptime checks probe the directory so.
    if (name === 'directory' && id === undefined)
      return this.onlyFor(method, ['GET', 'HEAD', 'POST'], async () => {
        if (method === 'POST') await this.postAsGet(request, urls);
        return this.directory(urls, profile);
      });
    if (name === 'new-nonce' && id === undefined) {
      return this.onlyFor(method, ['GET', 'HEAD', 'POST'], async () => {
        if (method === 'POST') await this.postAsGet(request, urls);
        return { status: method === 'GET' ? 204 : 200, headers: {} };
      });
    }
    if (name === 'renewal-info' && id !== undefined && sub === undefined)
      return this.onlyFor(method, ['GET', 'HEAD'], () => this.renewalInfo(id));
    const post = (handler: Handler, identifier?: string, part = page) =>
      this.onlyFor(method, ['POST'], () => handler(request, urls, identifier, profile, part));
    if (id === undefined) {
      if (name === 'new-account') return post(this.newAccount);
      if (name === 'new-order') return post(this.newOrder);
      if (name === 'revoke-cert') return post(this.revokeCert);
      if (name === 'key-change') return post(this.keyChange);
    } else if (sub === undefined) {
      if (name === 'account') return post(this.account, id);
      if (name === 'order') return post(this.order, id);
      if (name === 'authz') return post(this.authorization, id);
      if (name === 'challenge') return post(this.challenge, id);
      if (name === 'cert') return post(this.certificate, id);
    } else {
      if (name === 'order' && sub === 'finalize') return post(this.finalize, id);
      if (name === 'cert' && /^[1-9][0-9]?$/.test(sub)) return post(this.certificate, id, sub);
      if (name === 'account' && sub === 'orders') return post(this.accountOrders, id);
    }
    throw acmeNotFound('resource');
  }

  private async onlyFor(
    method: string,
    allowed: string[],
    answer: () => Promise<AcmeHttpResponse>,
  ): Promise<AcmeHttpResponse> {
    if (!allowed.includes(method)) {
      const refused = problem(new AcmeProblem('malformed', `use ${allowed.join(' or ')}`, { status: 405 }));
      refused.headers['Allow'] = allowed.join(', ');
      return refused;
    }
    return answer();
  }

  private async postAsGet(request: AcmeHttpRequest, urls: AcmeUrls): Promise<void> {
    const { payload } = await this.authenticate(request, urls, 'either');
    if (!payload.postAsGet)
      throw new AcmeProblem('malformed', 'this resource takes a POST-as-GET (empty payload)');
  }

  private async directory(urls: AcmeUrls, profile: AcmeProfileSettings): Promise<AcmeHttpResponse> {
    const profiles = await this.profiles.all();
    return json(200, {
      newNonce: urls.url('new-nonce'),
      newAccount: urls.url('new-account'),
      newOrder: urls.url('new-order'),
      revokeCert: urls.url('revoke-cert'),
      keyChange: urls.url('key-change'),
      renewalInfo: urls.url('renewal-info'),
      meta: {
        ...(this.deps.termsOfService ? { termsOfService: this.deps.termsOfService } : {}),
        ...(this.deps.website ? { website: this.deps.website } : {}),
        externalAccountRequired: profile.externalAccountRequired,
        ...(this.caaIdentitiesOf(profile).length
          ? { caaIdentities: [...this.caaIdentitiesOf(profile)] }
          : {}),
        // draft-ietf-acme-dns-persist-02 3.2, 4.1: what a client needs to publish a record before
        // any order (the challenge's issuerDomainNames are these same names).
        ...(profile.dnsPersist01 && this.caaIdentitiesOf(profile).length
          ? {
              issuerDomainNames: [...this.caaIdentitiesOf(profile)],
              accountHashPrefix: `${urls.location.origin}${ACCOUNT_HASH_PATH}`,
            }
          : {}),
        // draft-ietf-acme-profiles: the profiles a newOrder may name.
        profiles: Object.fromEntries(
          profiles.map(({ settings }) => [settings.id, settings.description || `The ${settings.id} profile`]),
        ),
      },
    });
  }

  /**
   * Authenticates a POST to `urls.url(resource)` (RFC 8555 6.2-6.5). With `also`, the resource the
   * request is about is read in the same statement as the nonce and the account (`resource`; read
   * on its own when the request names no account), for the handler to use once authenticated.
   */
  private async authenticate<T = never>(
    request: AcmeHttpRequest,
    urls: AcmeUrls,
    key: AcmeKeyMode,
    also?: RowRead<T>,
  ): Promise<AcmeAuthenticatedRequest & { accountRow: AcmeAccountRow | null; resource: T | null }> {
    const contentType = (request.contentType ?? '').split(';')[0].trim().toLowerCase();
    // RFC 8555 6.2: "...the server MUST reject the request" unless application/jose+json (415).
    if (contentType !== 'application/jose+json')
      throw new AcmeProblem('malformed', 'ACME requests are application/jose+json', { status: 415 });
    let accountRow: AcmeAccountRow | null = null;
    // The nonce is consumed and the kid's account read in one statement when the header names both.
    const claimedKid = key === 'kid' ? protectedHeaderKid(request.body) : undefined;
    const claimedAccountId = claimedKid === undefined ? null : urls.accountIdOf(claimedKid);
    let prefetched: { kid: string; account: AcmeAccountRow | null; also: T | null } | null = null;
    const authenticated = await authenticateAcmeRequest(
      request.body,
      { url: `${request.origin}${request.path}`, key },
      {
        consumeNonce: async (nonce) => {
          if (!claimedAccountId) return this.nonces.consume(nonce);
          const read = await this.accounts.consumeNonceAndGet(nonce, claimedAccountId, also);
          prefetched = { kid: claimedKid!, account: read.account, also: read.also };
          return read.nonceOk;
        },
        accountByKid: async (kid) => {
          const id = urls.accountIdOf(kid);
          const known: { kid: string; account: AcmeAccountRow | null } | null = prefetched;
          accountRow = known?.kid === kid ? known.account : id ? await this.accounts.byId(id) : null;
          return accountRow && { id: accountRow.id, jwk: accountRow.jwk, status: accountRow.status };
        },
      },
    );
    // Assigned in a callback: the compiler cannot see it, hence the cast.
    const read = prefetched as { also: T | null } | null;
    const resource = also ? (read ? read.also : await readRow(this.deps.executor, also)) : null;
    return { ...authenticated, accountRow, resource };
  }

  private readonly newAccount: Handler = async (request, urls, _id, profile) => {
    const { payload, jwk } = await this.authenticate(request, urls, 'jwk');
    if (payload.postAsGet) throw new AcmeProblem('malformed', 'newAccount needs a payload');
    const thumbprint = await jwkThumbprint(jwk);
    const existing = await this.accounts.byThumbprint(thumbprint);
    if (existing) {
      if (existing.status !== 'valid') throw inactiveAccount(existing.status);
      // RFC 8555 7.3.1: a key that has an account gets it back (200); "any fields in the request
      // object MUST be ignored", so they are not even checked.
      return this.accountAnswer(existing, urls, 200);
    }
    const input = checkNewAccountPayload(payload.json, this.termsRules());
    // RFC 8555 7.3.1: onlyReturnExisting for an unknown key is accountDoesNotExist.
    if (input.onlyReturnExisting)
      throw new AcmeProblem('accountDoesNotExist', 'no account exists for this key');
    const binding = await this.externalAccountBinding(
      payload.json.externalAccountBinding,
      request,
      jwk,
      profile,
    );
    const { account, created } = await this.deps.transaction(async (executor) => {
      await this.takeIpSlot(executor, 'new-accounts-ip', request, this.deps.newAccountsPerIpPerHour ?? 300);
      const outcome = await new AccountStore(executor).createOrFind({
        jwk,
        thumbprint,
        contact: input.contact,
        termsOfServiceAgreed: input.termsOfServiceAgreed,
        termsOfServiceUrl: input.termsOfServiceAgreed ? (this.deps.termsOfService ?? null) : null,
        ...(binding ? { binding: { eabKeyId: binding.id, owner: binding.owner, team: binding.team } } : {}),
      });
      if (!outcome.created) return outcome;
      // Single use: of two newAccounts with one key id, the second finds it bound (and rolls back).
      if (binding && !(await new EabKeyStore(executor).bind(binding.id, outcome.account.id)))
        throw new AcmeProblem('unauthorized', 'the external account key is already bound or was revoked');
      await this.audit(
        executor,
        AuditAction.AcmeAccountCreated,
        'acme_account',
        outcome.account.id,
        outcome.account.id,
        {
          contact: input.contact,
          jwk_thumbprint: thumbprint,
          ...(binding ? { eab_key_id: binding.id } : {}),
        },
      );
      return outcome;
    });
    return this.accountAnswer(account, urls, created ? 201 : 200);
  };

  /**
   * RFC 8555 7.3.4: the binding of a newAccount, checked against an unused, unrevoked EAB key;
   * without one, `externalAccountRequired` when the server requires it.
   */
  private async externalAccountBinding(
    value: unknown,
    request: AcmeHttpRequest,
    jwk: JWK,
    profile: AcmeProfileSettings,
  ): Promise<{ id: string; owner: string | null; team: string | null } | null> {
    if (value === undefined) {
      if (profile.externalAccountRequired)
        throw new AcmeProblem('externalAccountRequired', 'this server requires an external account binding');
      return null;
    }
    const box = this.deps.eabKeys;
    if (!box) throw new AcmeProblem('malformed', 'this server offers no external account binding');
    const keys = new EabKeyStore(this.deps.executor);
    let key: Awaited<ReturnType<EabKeyStore['byId']>> = null;
    await checkExternalAccountBinding(
      value,
      { url: `${request.origin}${request.path}`, accountJwk: jwk },
      async (id) => {
        key = await keys.byId(id);
        if (!key || key.revoked_at || key.bound_account_id) return null;
        return box.open(key.id, key.hmac_sealed);
      },
    );
    const bound = key as unknown as AcmeEabKeyRow;
    // A key made for one profile binds no account through another (checked after the MAC, so an
    // outsider learns nothing of the key).
    if (bound.profile_id && bound.profile_id !== profile.id)
      throw new AcmeProblem(
        'unauthorized',
        `the external account key is for profile ${bound.profile_id}, not ${profile.id}`,
      );
    return { id: bound.id, owner: bound.owner, team: bound.team };
  }

  private accountAnswer(account: AcmeAccountRow, urls: AcmeUrls, status: number): AcmeHttpResponse {
    return json(status, accountObject(account, urls, this.termsRules()), {
      Location: urls.account(account.id),
    });
  }

  private termsRules(): TermsRules {
    return { termsOfService: this.deps.termsOfService, reagreement: this.deps.termsOfServiceReagreement };
  }

  /** RFC 8555 7.3.3: an account that must agree to changed terms orders and issues nothing. */
  private requireCurrentTerms(account: AcmeAccountRow | null): void {
    const refused = account && termsAgreementProblem(account, this.termsRules());
    if (refused) throw refused;
  }

  /** The signing account must be the one the URL names (RFC 8555 7.3.2: else unauthorized). */
  private ownAccount(authenticated: { account: { id: string } | null }, id: string): string {
    if (!authenticated.account || authenticated.account.id !== id)
      throw new AcmeProblem('unauthorized', 'the request is not signed by this account');
    return id;
  }

  private readonly account: Handler = async (request, urls, id) => {
    const authenticated = await this.authenticate(request, urls, 'kid');
    this.ownAccount(authenticated, id!);
    const { payload } = authenticated;
    let account = authenticated.accountRow!;
    if (!payload.postAsGet) {
      // Checked before any change, so a malformed field changes nothing.
      const contact = payload.json.contact === undefined ? null : checkContacts(payload.json.contact);
      const agreedTo = termsAgreedInUpdate(payload.json, this.termsRules());
      // RFC 8555 7.3.2: a status other than 7.3.6's "deactivated" is ignored (clients post back the
      // account object they were given, "status": "valid" included).
      if (payload.json.status === 'deactivated') {
        const result = await this.deps.transaction(async (executor) => {
          const outcome = await new AccountStore(executor).transition(account.id, { kind: 'deactivate' });
          if (!outcome?.ok) return { outcome, ended: [] };
          const ended = await endOrdersOfDeactivatedAccount(executor, account.id);
          await this.audit(
            executor,
            AuditAction.AcmeAccountDeactivated,
            'acme_account',
            account.id,
            account.id,
            { ended_orders: ended.length },
          );
          return { outcome, ended };
        });
        if (!result.outcome?.ok) throw result.outcome?.problem ?? acmeNotFound('account');
        await this.deps.approvals?.withdraw(approvalsOf(result.ended), account.id);
      }
      if (contact)
        account =
          (await this.updateAccount(account.id, (store) => store.updateContact(account.id, contact), {
            contact,
          })) ?? account;
      if (agreedTo && !agreedToCurrentTerms(account, this.termsRules()))
        account =
          (await this.updateAccount(account.id, (store) => store.agreeToTerms(account.id, agreedTo), {
            terms_of_service_agreed: agreedTo,
          })) ?? account;
      account = (await this.accounts.byId(account.id)) ?? account;
    }
    return this.accountAnswer(account, urls, 200);
  };

  /** Changes a valid account and audits it in one transaction; null when it is no longer valid. */
  private updateAccount(
    accountId: string,
    change: (store: AccountStore) => Promise<AcmeAccountRow | null>,
    details: Record<string, unknown>,
  ): Promise<AcmeAccountRow | null> {
    return this.deps.transaction(async (executor) => {
      const row = await change(new AccountStore(executor));
      if (row)
        await this.audit(
          executor,
          AuditAction.AcmeAccountUpdated,
          'acme_account',
          accountId,
          accountId,
          details,
        );
      return row;
    });
  }

  /**
   * RFC 8555 7.1.2.1: the account's orders a page at a time; a full page links the next one
   * (`Link: rel="next"`, `.../orders/<last id of this page>`).
   */
  private readonly accountOrders: Handler = async (request, urls, id, _profile, after) => {
    const authenticated = await this.authenticate(request, urls, 'kid');
    this.ownAccount(authenticated, id!);
    if (after !== undefined && !/^[A-Za-z0-9_-]{1,64}$/.test(after)) throw acmeNotFound('orders page');
    const ids = await this.orders.ordersOf(id!, ACCOUNT_ORDERS_PAGE + 1, after);
    const page = ids.slice(0, ACCOUNT_ORDERS_PAGE);
    return json(
      200,
      { orders: page.map((orderId) => urls.order(orderId)) },
      ids.length > page.length
        ? { Link: `<${urls.accountOrders(id!)}/${page[page.length - 1]}>;rel="next"` }
        : {},
    );
  };

  private readonly newOrder: Handler = async (request, urls, _id, urlProfile) => {
    const { payload, account, accountRow } = await this.authenticate(request, urls, 'kid');
    if (payload.postAsGet) throw new AcmeProblem('malformed', 'newOrder needs a payload');
    this.requireCurrentTerms(accountRow);
    const profile = await this.orderProfile(payload.json.profile, urlProfile);
    const validity = await this.requestedValidityOf(payload.json, profile);
    // An account made without a binding does not reach a profile that requires one.
    if (profile.externalAccountRequired && !accountRow?.eab_key_id)
      throw new AcmeProblem(
        'unauthorized',
        `profile ${profile.id} requires an account created with an external account binding`,
      );
    await this.checkEabProfile(accountRow, profile);
    const identifiers = checkOrderIdentifiers(payload.json.identifiers, { allowIp: profile.allowIp });
    checkIdentifiersForProfile(identifiers, profile);
    await this.checkFailedValidations(account!.id, identifiers);
    const replaces = await this.checkReplaces(payload.json.replaces, account!.id, identifiers);
    const offered = this.challengesOf(profile);
    const unreachable = identifiers.filter((i) => challengeTypesFor(i, offered).length === 0);
    if (unreachable.length)
      throw new AcmeProblem(
        'rejectedIdentifier',
        `no offered challenge can validate ${unreachable.map((i) => i.value).join(', ')}`,
        {
          subproblems: unreachable.map((identifier) => ({
            type: 'rejectedIdentifier' as const,
            detail: 'no challenge type this server offers can validate it',
            identifier,
          })),
        },
      );
    // A statement of its own: the lock on the address's count is not held while the order is
    // written, so the clients behind one address (a NAT, a fleet) are not serialized.
    await this.takeIpSlot(
      this.deps.executor,
      'new-orders-ip',
      request,
      this.deps.newOrdersPerIpPerHour ?? 30_000,
    );
    const now = new Date();
    const slot = {
      key: `new-orders:${profile.id}:${account!.id}`,
      rule: { limit: profile.newOrdersPerHour, windowMs: 3600_000 },
    };
    const { order, reused, gate } = await this.orders.create({
      accountId: account!.id,
      profileId: profile.id,
      identifiers,
      expiresAt: (reused) => orderExpiry(now, reused),
      authorizationExpiresAt: new Date(now.getTime() + DEFAULT_ACME_LIFETIMES.pendingMs),
      reuseUntil: new Date(now.getTime() + 24 * 3600_000),
      challengeTypes: (identifier) => challengeTypesFor(identifier, offered),
      replaces,
      validity,
      gate: (statement) => rateSlotGate(statement, slot.key, slot.rule, now),
      alongside: (statement, condition, orderId) =>
        this.deps.auditPart?.(
          statement,
          condition,
          this.auditRecord(AuditAction.AcmeOrderCreated, 'acme_order', orderId, account!.id, {
            identifiers,
            profile: profile.id,
          }),
        ),
    });
    const limit = rateSlotOutcome(slot.key, slot.rule, gate as Date | null, now);
    if (!limit.ok) throw limit.problem;
    this.deps.committed?.();
    this.deps.observe?.orderCreated(profile.id);
    // Reused authorizations may already make the order ready; new ones are pending.
    let view = order!; // the gate let the statement write: the order is stored
    if (reused > 0) {
      await this.advanceOrders({ orderId: view.id });
      view = (await this.orders.orderView(view.id))!;
    }
    return json(201, this.orderObject(view, urls), { Location: urls.order(view.id) });
  };

  /**
   * RFC 8555 7.4: the notBefore/notAfter a newOrder asks for, where the profile allows them, within
   * the validity the profile issues (its own, capped by its certificate profile; else 90 days).
   */
  private async requestedValidityOf(
    payload: Record<string, unknown>,
    profile: AcmeProfileSettings,
  ): Promise<RequestedValidity> {
    if (payload.notBefore === undefined && payload.notAfter === undefined)
      return { notBefore: null, notAfter: null };
    const certificateProfile = profile.allowRequestedValidity
      ? await this.certificateProfileOf(profile)
      : null;
    const maxDays =
      acmeValidityDays(profile.validityDays, certificateProfile?.validity_days) ?? DEFAULT_ACME_VALIDITY_DAYS;
    return requestedValidity(payload, { allowed: profile.allowRequestedValidity, maxDays }, new Date());
  }

  /** The challenge types a profile offers: dns-persist-01 only where enabled and the CA has a name. */
  private challengesOf(profile: AcmeProfileSettings): readonly ChallengeType[] {
    return profile.dnsPersist01 && this.caaIdentitiesOf(profile).length
      ? WITH_DNS_PERSIST
      : OFFERED_CHALLENGES;
  }

  /** The issuer domain names of a profile: its own, else the server-wide ones. */
  /** Whether orders of this profile are checked against CAA (RFC 8659): identities and a checker. */
  private checksCaa(profile: AcmeProfileSettings): boolean {
    return this.deps.caa !== undefined && this.caaIdentitiesOf(profile).length > 0;
  }

  private caaIdentitiesOf(profile: AcmeProfileSettings): readonly string[] {
    return profile.caaIdentities ?? this.deps.caa?.identities ?? [];
  }

  /** An account bound with a profile's EAB key orders only under that profile. */
  private async checkEabProfile(account: AcmeAccountRow | null, profile: AcmeProfileSettings): Promise<void> {
    if (!account?.eab_key_id) return;
    const key = await new EabKeyStore(this.deps.executor).byId(account.eab_key_id);
    if (key?.profile_id && key.profile_id !== profile.id)
      throw new AcmeProblem(
        'unauthorized',
        `this account was bound with an external account key for profile ${key.profile_id}`,
      );
  }

  /** RFC 8555 6.6: one event of a per-client-address limit (in the caller's transaction, if any). */
  private async takeIpSlot(executor: SqlExecutor, kind: string, request: AcmeHttpRequest, limit: number) {
    if (!request.clientIp) return;
    const taken = await new RateLimitStore(executor).take(`${kind}:${request.clientIp}`, {
      limit,
      windowMs: 3600_000,
    });
    if (!taken.ok) throw taken.problem;
  }

  /**
   * An account whose validations for an identifier keep failing waits before ordering it again
   * (RFC 8555 6.6; Let's Encrypt's failed-validation limit): `rateLimited` with Retry-After.
   */
  private async checkFailedValidations(accountId: string, identifiers: { type: string; value: string }[]) {
    const full = await new RateLimitStore(this.deps.executor).checkAll(
      identifiers.map((identifier) => failedValidationKey(accountId, identifier)),
      { limit: this.deps.failedValidationsPerHour ?? 5, windowMs: 3600_000 },
    );
    if (!full) return;
    const identifier = identifiers.find((i) => failedValidationKey(accountId, i) === full.key)!;
    throw new AcmeProblem(
      'rateLimited',
      `too many failed validations of ${identifier.value} for this account; retry after ${full.refusal.retryAfterSeconds} s`,
      { retryAfterSeconds: full.refusal.retryAfterSeconds },
    );
  }

  /**
   * draft-ietf-acme-profiles: a newOrder's `profile` names one of the directory's profiles (else
   * invalidProfile); without it, the order is under the profile of the URL it was sent to.
   */
  private async orderProfile(raw: unknown, urlProfile: AcmeProfileSettings): Promise<AcmeProfileSettings> {
    if (raw === undefined || raw === urlProfile.id) return urlProfile;
    if (typeof raw !== 'string') throw new AcmeProblem('malformed', 'profile must be a string');
    const named = await this.profiles.get(raw);
    if (!named) throw new AcmeProblem('invalidProfile', `there is no profile ${raw}`);
    return named;
  }

  /**
   * RFC 9773 5: `replaces` names a certificate of this account (by its renewal id) that shares an
   * identifier with the new order and that no other order has replaced yet.
   */
  private async checkReplaces(
    raw: unknown,
    accountId: string,
    identifiers: { type: string; value: string }[],
  ): Promise<string | undefined> {
    if (raw === undefined) return undefined;
    if (typeof raw !== 'string' || !isRenewalCertId(raw))
      throw new AcmeProblem('malformed', 'replaces must be a certificate identifier <AKI>.<serial>');
    const certificate = await this.certificates.byRenewalId(raw);
    if (!certificate || certificate.account_id !== accountId)
      throw new AcmeProblem('malformed', 'replaces names no certificate of this account');
    const order = await this.orders.order(certificate.order_id);
    const previous = new Set((order?.identifiers ?? []).map((i) => `${i.type}:${i.value}`));
    if (!identifiers.some((i) => previous.has(`${i.type}:${i.value}`)))
      throw new AcmeProblem('malformed', 'the replaced certificate shares no identifier with the new order');
    if (await this.orders.replacedBy(raw))
      throw new AcmeProblem('alreadyReplaced', 'another order has already replaced this certificate');
    return raw;
  }

  private ownOrder(accountId: string, order: AcmeOrderView | null): AcmeOrderView {
    if (!order) throw acmeNotFound('order');
    if (order.account_id !== accountId)
      throw new AcmeProblem('unauthorized', 'the order belongs to another account');
    return order;
  }

  private readonly order: Handler = async (request, urls, id) => {
    const { account, accountRow, resource } = await this.authenticate(
      request,
      urls,
      'kid',
      OrderStore.orderViewRead(id!),
    );
    let order = this.ownOrder(account!.id, resource);
    if (order.status === 'processing' && order.approval_id)
      order = await this.pickUpApproval(order, accountRow);
    return this.orderAnswer(order, urls);
  };

  /**
   * An approval decided while the client was away (ADR 0068 amendment, ninth stop): the order
   * waiting for it moves as a poll would move it (valid with its certificate, or invalid). The
   * order's status afterwards, or null when no processing order waits for that approval.
   */
  async followApprovalDecision(approvalId: string, orderId: string): Promise<OrderStatus | null> {
    const order = await this.orders.orderView(orderId);
    if (order?.status !== 'processing' || order.approval_id !== approvalId) return null;
    const accountRow = await this.accounts.byId(order.account_id);
    return (await this.pickUpApproval(order, accountRow)).status;
  }

  /**
   * The sweep's safety net for processing orders (ADR 0053 amendment, tenth stop): an order waiting
   * for an approval past its expiry is moved as its decision says (the event may have been missed);
   * one still processing `abandonAfterMs` after a finalize took it (its replica stopped), or after
   * its expiry while the decision could not be read, ends invalid so its client orders again. The
   * ids of the orders that ended so.
   */
  async settleProcessingOrders(now: Date, abandonAfterMs: number): Promise<string[]> {
    for (const order of await this.orders.awaitingEndedApprovals(now))
      await this.followApprovalDecision(order.approval_id, order.id);
    const before = new Date(now.getTime() - abandonAfterMs);
    return this.orders.abandon({
      finalizeTakenBefore: before,
      approvalExpiredBefore: before,
      finalizeError: abandonedOrderProblem(false).toDocument(),
      approvalError: abandonedOrderProblem(true).toDocument(),
    });
  }

  /** An order's object; while processing with `Retry-After` (RFC 8555 7.4). */
  private orderAnswer(order: AcmeOrderView, urls: AcmeUrls, headers: Record<string, string> = {}) {
    const body = this.orderObject(order, urls);
    return json(200, body, {
      ...headers,
      ...(body.status === 'processing' ? { 'Retry-After': String(ORDER_RETRY_AFTER_SECONDS) } : {}),
    });
  }

  private orderObject(order: AcmeOrderView, urls: AcmeUrls): Record<string, unknown> {
    const status = effectiveOrderStatus(timed(order), new Date());
    return {
      status,
      expires: order.expires_at.toISOString(),
      identifiers: order.identifiers,
      profile: order.profile_id,
      authorizations: order.authorization_ids.map((a) => urls.authz(a)),
      finalize: urls.finalize(order.id),
      // RFC 9773 5: the server "MUST reflect that field in the response and in subsequent requests".
      ...(order.replaces ? { replaces: order.replaces } : {}),
      ...(order.not_before ? { notBefore: order.not_before.toISOString() } : {}),
      ...(order.not_after ? { notAfter: order.not_after.toISOString() } : {}),
      ...(status === 'valid' && order.certificate_id
        ? { certificate: urls.certificate(order.certificate_id) }
        : {}),
      ...(order.error ? { error: order.error } : {}),
    };
  }

  private readonly authorization: Handler = async (request, urls, id) => {
    const {
      account,
      payload,
      resource: found,
    } = await this.authenticate(request, urls, 'kid', OrderStore.authorizationWithChallengesRead(id!));
    if (!found) throw acmeNotFound('authorization');
    let { authorization, challenges } = found;
    if (authorization.account_id !== account!.id)
      throw new AcmeProblem('unauthorized', 'the authorization belongs to another account');
    if (!payload.postAsGet) {
      if (payload.json.status !== 'deactivated')
        throw new AcmeProblem('malformed', 'an authorization can only be updated to status "deactivated"');
      const from = effectiveAuthorizationStatus(timed(authorization), new Date());
      const result = nextAuthorizationStatus(from, { kind: 'deactivate' });
      if (!result.ok) throw result.problem;
      await this.orders.setAuthorizationStatus(authorization.id, from, result.to);
      await this.advanceOrders({ authorizationId: authorization.id });
      ({ authorization, challenges } = (await this.orders.authorizationWithChallenges(id!))!);
    }
    const body = await this.authorizationObject(authorization, challenges, urls);
    const retryAfter = authorizationRetryAfterSeconds(body.status as string, challenges, new Date());
    return json(200, body, retryAfter === null ? {} : { 'Retry-After': String(retryAfter) });
  };

  private async authorizationObject(
    authorization: AcmeAuthorizationRow,
    challenges: AcmeChallengeRow[],
    urls: AcmeUrls,
  ): Promise<Record<string, unknown>> {
    const issuerDomainNames = challenges.some((c) => c.type === 'dns-persist-01')
      ? await this.issuerDomainNamesOf(authorization.id)
      : [];
    const status = effectiveAuthorizationStatus(timed(authorization), new Date());
    // RFC 8555 7.1.4: a valid authorization lists "the challenge that was validated", an invalid
    // one "the challenge that was attempted and failed"; a pending one every challenge offered.
    const decided =
      status === 'valid' || status === 'invalid' ? challenges.filter((c) => c.status === status) : [];
    return {
      identifier: { type: authorization.identifier_type, value: authorization.identifier_value },
      status,
      expires: authorization.expires_at.toISOString(),
      challenges: (decided.length ? decided : challenges).map((c) =>
        challengeObject(c, urls, issuerDomainNames, authorization.account_id),
      ),
      ...(authorization.wildcard ? { wildcard: true } : {}),
    };
  }

  private readonly challenge: Handler = async (request, urls, id) => {
    const {
      account,
      payload,
      jwk,
      resource: found,
    } = await this.authenticate(request, urls, 'kid', OrderStore.challengeWithAuthorizationRead(id!));
    if (!found) throw acmeNotFound('challenge');
    const { authorization, othersPending } = found;
    let { challenge } = found;
    if (authorization.account_id !== account!.id)
      throw new AcmeProblem('unauthorized', 'the challenge belongs to another account');
    if (!payload.postAsGet) {
      // RFC 8555 7.5.1: the client says it is ready by posting an empty object.
      if (
        effectiveAuthorizationStatus(timed(authorization), new Date()) !== 'pending' &&
        challenge.status === 'pending'
      )
        throw new AcmeProblem('malformed', 'the authorization of this challenge is no longer pending');
      const result = nextChallengeStatus(challenge.status, { kind: 'respond' });
      if (!result.ok) throw result.problem;
      // RFC 8555 8.2: a repeated response to a challenge waiting for its next attempt asks for that
      // attempt now. Each one counts toward the challenge's few attempts, which bounds how many
      // retries a client can ask for (the rate limit the clause asks for).
      const retryNow = !result.changed && challenge.status === 'processing';
      if (result.changed || retryNow) {
        // pending -> processing and this replica's claim in one compare-and-set: validated at once,
        // not at the sweep's next tick, and answered with the status just set.
        const claimed = await this.orders.claimForValidation(
          challenge.id,
          this.leaseMs(),
          retryNow ? 'retry-now' : 'pending',
        );
        if (claimed) {
          const thumbprint = await jwkThumbprint(jwk);
          const validation = this.validateClaimed(
            claimed,
            keyAuthorization(challenge.token, thumbprint),
          ).catch((error) => {
            this.deps.onBackgroundError?.(error);
            return null;
          });
          // Answered with the outcome when the first attempt ends soon: the client's next poll
          // finds the authorization (and order) already moved. A slower one goes on in the
          // background. While another authorization of the order is pending, the client may be
          // answering challenges one by one: no wait, so their validations still run side by side.
          const waitMs = othersPending ? 0 : this.challengeAnswerWaitMs();
          challenge = (await settledWithin(validation, waitMs)) ?? {
            ...challenge,
            status: result.to,
          };
        } else if (!retryNow) challenge = (await this.orders.challenge(id!))!;
      }
    }
    const issuerDomainNames =
      challenge.type === 'dns-persist-01' ? await this.issuerDomainNamesOf(authorization.id) : [];
    return json(200, challengeObject(challenge, urls, issuerDomainNames, authorization.account_id), {
      Link: `<${urls.authz(authorization.id)}>;rel="up"`,
      // RFC 8555 8.2: while processing, when the client may look again (the next attempt's time).
      ...(challenge.status === 'processing'
        ? { 'Retry-After': String(challengeRetryAfterSeconds(challenge.retry_at ?? null, new Date())) }
        : {}),
    });
  };

  /**
   * Validates a processing challenge once (the claim keeps other replicas off it) and moves its
   * authorization and their orders. Returns the challenge's final status, or null when another
   * replica holds it.
   */
  async validate(challengeId: string, expectedKeyAuthorization: string): Promise<string | null> {
    const challenge = await this.orders.claimForValidation(challengeId, this.leaseMs());
    return challenge && ((await this.validateClaimed(challenge, expectedKeyAuthorization))?.status ?? null);
  }

  private leaseMs(): number {
    return this.deps.validationLeaseMs ?? 60_000;
  }

  private challengeAnswerWaitMs(): number {
    return this.deps.challengeAnswerWaitMs ?? DEFAULT_CHALLENGE_ANSWER_WAIT_MS;
  }

  /**
   * One validation attempt of a challenge this replica claimed (see `validate`): the challenge as
   * it left it (still processing when a retry follows), or null when it was no longer processing.
   */
  private async validateClaimed(
    challenge: AcmeClaimedChallenge,
    expectedKeyAuthorization: string,
  ): Promise<AcmeChallengeRow | null> {
    const { authorization } = challenge;
    const started = performance.now();
    const observed = (result: 'valid' | 'invalid' | 'retry') =>
      this.deps.observe?.validation(challenge.type, result, (performance.now() - started) / 1000);
    // The profile's identities are read only where they matter: dns-persist-01, or CAA of a name
    // while some profile (or the server) names identities.
    const identities =
      challenge.type === 'dns-persist-01' ||
      (authorization.identifier_type === 'dns' && (await this.profiles.anyCaaIdentities()))
        ? await this.issuerDomainNamesOf(authorization.id)
        : [];
    let outcome = await this.deps.validate(challenge, authorization, expectedKeyAuthorization, {
      issuerDomainNames: identities,
      ...(challenge.type === 'dns-persist-01'
        ? { account: await this.dnsPersistAccount(authorization.account_id) }
        : {}),
    });
    // RFC 8659 3: CAA is checked once control is shown, with the method that showed it (RFC 8657 4).
    if (outcome.ok) {
      const refused = await this.checkCaa(authorization, challenge.type, identities);
      if (refused) outcome = { ok: false, problem: refused };
    }
    const attempt = (result: 'valid' | 'invalid' | 'retry') => ({
      challengeId: challenge.id,
      authorizationId: authorization.id,
      accountId: authorization.account_id,
      type: challenge.type,
      identifier: { type: authorization.identifier_type, value: authorization.identifier_value },
      result,
      ...(outcome.ok ? {} : { error: outcome.problem.toDocument() }),
      remoteAddress: outcome.remoteAddress ?? null,
    });
    if (!outcome.ok) {
      const delay = validationRetryDelay(outcome.problem.type, challenge.attempts);
      if (delay !== null) {
        // The attempt is recorded with the lease moved to the retry time, or not at all.
        await this.deps.transaction(async (executor) => {
          if (await new OrderStore(executor).retryLater(challenge.id, delay, outcome.problem.toDocument()))
            await new AcmeOperationsStore(executor).recordAttempt(attempt('retry'));
        });
        observed('retry');
        return {
          ...challenge,
          status: 'processing',
          error: outcome.problem.toDocument(),
          retry_at: new Date(Date.now() + delay),
        };
      }
    }
    const event = outcome.ok ? ({ kind: 'validated' } as const) : ({ kind: 'validation-failed' } as const);
    const next = nextChallengeStatus('processing', event);
    if (!next.ok) return null;
    const identifier = { type: authorization.identifier_type, value: authorization.identifier_value };
    const authorizationNext = nextAuthorizationStatus(authorization.status, {
      kind: outcome.ok ? 'challenge-valid' : 'challenge-invalid',
    });
    const record = this.auditRecord(
      outcome.ok ? AuditAction.AcmeChallengeValidated : AuditAction.AcmeChallengeFailed,
      'acme_challenge',
      challenge.id,
      authorization.account_id,
      { type: challenge.type, identifier, ...(outcome.ok ? {} : { error: outcome.problem.toDocument() }) },
    );
    const error = outcome.ok ? undefined : outcome.problem.toDocument();
    const concluded = await this.orders.concludeValidation({
      challenge: { id: challenge.id, to: next.to, error },
      ...(authorizationNext.ok
        ? {
            authorization: {
              id: authorization.id,
              from: authorization.status,
              to: authorizationNext.to,
              // A dns-persist-01 record's persistUntil caps it (the draft: "MUST NOT set the
              // expires field ... later than T").
              ...(outcome.ok
                ? {
                    validForMs: DEFAULT_ACME_LIFETIMES.validAuthorizationMs,
                    ...(outcome.validUntil ? { validUntil: outcome.validUntil } : {}),
                  }
                : {}),
            },
          }
        : {}),
      alongside: (statement, condition) => {
        // A failure counts towards the account's failed-validation limit for the identifier.
        if (!outcome.ok)
          statement.with(
            'failure',
            rateEventInsert(
              statement,
              failedValidationKey(authorization.account_id, identifier),
              new Date(),
              condition,
            ),
          );
        // The validation attempt, for operators (issue 19 point 10) and audit (point 4).
        statement.with(
          'attempt',
          validationAttemptInsert(statement, attempt(outcome.ok ? 'valid' : 'invalid'), condition),
        );
        this.deps.auditPart?.(statement, condition, record);
      },
    });
    if (concluded) {
      this.deps.committed?.();
      observed(outcome.ok ? 'valid' : 'invalid');
    }
    await this.advanceOrders({ authorizationId: authorization.id });
    // Not concluded: another replica ended this validation (this one's lease had run out).
    if (!concluded) return null;
    return {
      ...challenge,
      status: next.to,
      validated_at: concluded.validatedAt,
      // As stored: a valid challenge drops the problem of an earlier attempt that was retried.
      error: next.to === 'valid' ? null : (error ?? challenge.error),
    };
  }

  private checkCaa(
    authorization: AcmeAuthorizationRow,
    method: string,
    identities: readonly string[],
  ): Promise<AcmeProblem | null> {
    if (!this.deps.caa || identities.length === 0) return Promise.resolve(null);
    return this.deps.caa.check({
      identifier: { type: authorization.identifier_type, value: authorization.identifier_value },
      wildcard: authorization.wildcard,
      accountId: authorization.account_id,
      validationMethod: method,
      identities,
    });
  }

  /** The issuer domain names (CAA identities) of the profile an authorization is validated for. */
  /**
   * What dns-persist-01 checks of the ordering account, read live at each attempt (draft -02 4.2):
   * every key it has held, whether it is deactivated, and the URLs this server hands it on an
   * origin (the plain form and each profile's, any of which a client may have hashed).
   */
  private async dnsPersistAccount(accountId: string): Promise<DnsPersistAccount> {
    const [keys, profiles] = await Promise.all([this.accounts.keyHistory(accountId), this.profiles.all()]);
    const paths = [
      `/acme/account/${accountId}`,
      ...profiles.map(({ settings }) => `/acme/profile/${settings.id}/account/${accountId}`),
    ];
    return {
      accountThumbprints: keys?.thumbprints ?? [],
      accountDeactivated: keys?.status !== 'valid',
      accountUrlsOn: (origin) => paths.map((path) => `${origin}${path}`),
    };
  }

  private async issuerDomainNamesOf(authorizationId: string): Promise<readonly string[]> {
    const profileId = await profileOfAuthorization(this.deps.executor, authorizationId);
    const profile = profileId ? await this.profiles.get(profileId) : null;
    return profile ? this.caaIdentitiesOf(profile) : (this.deps.caa?.identities ?? []);
  }

  /**
   * RFC 8659 3: issuance follows a CAA check by at most 8 hours; a reused authorization whose
   * validation is older is checked again at finalize. A profile with its own CAA identities
   * checks every authorization again: one may have been validated for another profile's.
   */
  private async recheckCaa(orderId: string, profile: AcmeProfileSettings, always: boolean): Promise<void> {
    if (!this.checksCaa(profile)) return;
    const identities = this.caaIdentitiesOf(profile);
    const staleBefore = profile.caaIdentities || always ? Infinity : Date.now() - CAA_RECHECK_AFTER_MS;
    for (const authorization of await this.orders.authorizationsOf(orderId)) {
      const valid = (await this.orders.challengesOf(authorization.id)).find((c) => c.status === 'valid');
      if (!valid || (valid.validated_at && valid.validated_at.getTime() >= staleBefore)) continue;
      const refused = await this.checkCaa(authorization, valid.type, identities);
      if (refused) throw refused;
    }
  }

  /** Moves the open orders of an authorization (or one order) as their authorizations now say. */
  private async advanceOrders(of: { authorizationId: string } | { orderId: string }): Promise<void> {
    const now = new Date();
    for (const order of await this.orders.openOrderStates(of)) await this.advanceOrder(order, now);
  }

  /** Moves a pending order to ready or invalid as its authorizations now say. */
  private async advanceOrder(order: AcmeOpenOrderState, now: Date): Promise<void> {
    const event = orderEventFromAuthorizations(
      order.authorizations.map((a) => effectiveAuthorizationStatus(timed(a), now)),
    );
    if (!event) return;
    const next = nextOrderStatus(order.status, event);
    if (!next.ok) return;
    const error =
      next.to === 'invalid'
        ? new AcmeProblem('unauthorized', 'an authorization of the order failed or ended').toDocument()
        : undefined;
    await this.orders.setOrderStatus(order.id, order.status, next.to, error);
  }

  private readonly finalize: Handler = async (request, urls, id) => {
    const authenticated = await this.authenticate(request, urls, 'kid', OrderStore.orderViewRead(id!));
    const { account, accountRow, payload } = authenticated;
    const order = this.ownOrder(account!.id, authenticated.resource);
    this.requireCurrentTerms(accountRow);
    const profile = await this.profiles.get(order.profile_id);
    if (!profile)
      throw new AcmeProblem('invalidProfile', `the profile ${order.profile_id} of this order is gone`);
    if (payload.postAsGet || typeof payload.json.csr !== 'string')
      throw new AcmeProblem('malformed', 'finalize needs {"csr": <base64url DER>}');
    const status = effectiveOrderStatus(timed(order), new Date());
    const next = nextOrderStatus(status, { kind: 'finalize' });
    if (!next.ok) throw next.problem;
    const validity = { notBefore: order.not_before, notAfter: order.not_after };
    checkValidityAtFinalize(validity, new Date());
    const certificateProfile = await this.certificateProfileOf(profile);
    const der = Buffer.from(payload.json.csr, 'base64url');
    let csrPem: string;
    let certified: CertifiedNames;
    let stapleRequested: boolean;
    let extendedKeyUsage: ProfileEkuName[] | undefined;
    let keyType: string;
    try {
      const csr = parseCsr(der);
      keyType = csr.publicKey.description;
      certified = checkCsrAgainstOrder(
        { commonName: csr.subject.commonName, subjectAltNames: csr.subjectAltNames },
        order.identifiers,
      );
      // As Boulder and Pebble: the key that proves the account never becomes a certificate's key.
      if (jwkMatchesKey(accountRow!.jwk, publicKeyObject(csr.publicKey)))
        throw new AcmeProblem('badCSR', "the CSR's public key is the account key");
      // RFC 7633: a CSR asking for must-staple gets it (certbot --must-staple).
      stapleRequested = csr.requested.mustStaple === true;
      // RFC 8555 7.4: badCSR with every reason; the order stays ready for an amended CSR.
      if (certificateProfile) {
        const facts = EstCsr.parse(der).facts();
        const problems = certificateProfileProblems(facts, certificateProfile);
        extendedKeyUsage = enrolledEkus(certificateProfile, facts);
        if (problems.length > 0)
          throw new AcmeProblem(
            'badCSR',
            `the CSR does not meet certificate profile ${profile.certificateProfileId}: ${problems.join('; ')}`,
          );
      }
      csrPem = `-----BEGIN CERTIFICATE REQUEST-----\n${der.toString('base64').replace(/(.{64})/g, '$1\n')}\n-----END CERTIFICATE REQUEST-----\n`;
    } catch (error) {
      if (error instanceof AcmeProblem) throw error;
      if (error instanceof PkiError) throw new AcmeProblem('badCSR', error.message);
      throw error;
    }
    // An order waiting for approval is issued when someone decides: its CAA is checked now, and
    // the approval lasts no longer than CA/B BR 3.2.2.8 lets a check stand (8 hours).
    const awaitsApproval = certificateProfile?.requires_approval === true;
    await this.recheckCaa(order.id, profile, awaitsApproval);
    if (order.replaces && (await this.orders.replacedBy(order.replaces)))
      throw new AcmeProblem('alreadyReplaced', 'another order has already replaced this certificate');
    const validityDays = acmeValidityDays(profile.validityDays, certificateProfile?.validity_days);
    const mustStaple = stapleRequested || certificateProfile?.must_staple === true;
    if (certificateProfile?.requires_approval)
      return this.holdForApproval(order, profile, accountRow, csrPem, urls, {
        validityDays,
        validity,
        mustStaple,
        extendedKeyUsage,
        certified,
        keyType,
      });
    // The compare-and-set makes one finalize of a ready order win; a second sees processing.
    if (!(await this.orders.setOrderStatus(order.id, 'ready', 'processing')))
      throw new AcmeProblem('orderNotReady', 'the order is not ready (it is being finalized already)');
    let answer: AcmeOrderView | null = null;
    try {
      const { owner, team } = ownerOf(accountRow, profile);
      // A renewal is recorded as the next inventory version of the certificate it replaces.
      const predecessor = await this.predecessorOf(order, keyType);
      const issued = await this.deps.issuer.issueAndRecord({
        csrPem,
        certified,
        ...(profile.issuerId ? { issuerId: profile.issuerId } : {}),
        ...(validityDays ? { validityDays } : {}),
        ...(validity.notBefore ? { notBefore: validity.notBefore } : {}),
        ...(validity.notAfter ? { notAfter: validity.notAfter } : {}),
        ...(mustStaple ? { mustStaple: true } : {}),
        ...(extendedKeyUsage ? { extendedKeyUsage } : {}),
        profileId: profile.id,
        owner,
        team,
        ...(predecessor?.certificate_id ? { versionOf: predecessor.certificate_id } : {}),
      });
      const stored = await this.storeIssued(
        order,
        issued,
        { profileId: profile.id, owner, team },
        { inventoryId: issued.certificate_id, predecessor },
      );
      if (stored) answer = { ...order, status: 'valid', certificate_id: stored.id };
    } catch (error) {
      const failure =
        error instanceof AcmeProblem
          ? error
          : new AcmeProblem('serverInternal', 'the issuer did not issue the certificate');
      await this.orders.setOrderStatus(order.id, 'processing', 'invalid', failure.toDocument());
      this.deps.onBackgroundError?.(error);
    }
    return this.orderAnswer(answer ?? (await this.orders.orderView(order.id))!, urls, {
      Location: urls.order(order.id),
    });
  };

  /**
   * Stores the certificate of a processing order and makes the order valid, in one statement
   * that starts with the order's compare-and-set: of two replicas storing the same order's
   * certificate, one stores it and the other gets null.
   */
  private async storeIssued(
    order: AcmeOrderView,
    issued: AcmeIssuedCertificate,
    audited: { profileId: string; owner: string | null; team: string | null; approvalId?: string },
    recorded: {
      /** The inventory certificate that records it. */
      inventoryId: string | null;
      /** What it renews, when the caller looked it up already (else looked up here). */
      predecessor?: AcmeCertificateRow | null;
    },
  ): Promise<{ id: string; renews: { serial_hex: string; certificate_id: string | null } | null } | null> {
    const leaf = parseCertificates(issued.full_pem)[0];
    const predecessor =
      recorded.predecessor === undefined
        ? await this.predecessorOf(order, leaf.publicKey.description)
        : recorded.predecessor;
    const details = {
      issuer_id: issued.issuer_id,
      order_id: order.id,
      identifiers: order.identifiers,
      not_after: issued.not_after,
      profile: audited.profileId,
      owner: audited.owner,
      team: audited.team,
      ...(audited.approvalId ? { approval_id: audited.approvalId } : {}),
    };
    const audit = (replaces?: string) =>
      this.auditRecord(
        AuditAction.AcmeCertificateIssued,
        'certificate',
        issued.serial_hex,
        order.account_id,
        {
          ...details,
          ...(replaces ? { replaces } : {}),
        },
      );
    const stored = await this.certificates.storeForOrder(
      {
        orderId: order.id,
        accountId: order.account_id,
        issuerId: issued.issuer_id,
        serialHex: issued.serial_hex,
        pemChain: issued.full_pem,
        notBefore: leaf.notBefore,
        notAfter: leaf.notAfter,
        renewalId: renewalCertId(leaf.decoded.authorityKeyIdentifier ?? Buffer.alloc(0), leaf.serialBytes),
        identifiers: order.identifiers,
        ...(issued.alternate_full_pems?.length ? { alternateChains: issued.alternate_full_pems } : {}),
        ...(recorded.inventoryId ? { certificateId: recorded.inventoryId } : {}),
        ...(predecessor ? { replaces: predecessor.id } : {}),
      },
      // The audit record names what it renews only when the link took.
      (statement, { stored, renewed }) => {
        if (predecessor)
          this.deps.auditPart?.(statement, `${stored} AND ${renewed}`, audit(predecessor.serial_hex));
        this.deps.auditPart?.(statement, `${stored} AND NOT ${renewed}`, audit());
      },
    );
    if (!stored) return null;
    this.deps.committed?.();
    this.deps.observe?.certificateIssued(audited.profileId);
    return { id: stored.id, renews: stored.renewed ? predecessor! : null };
  }

  /**
   * What an order renews: the certificate `replaces` named (RFC 9773 5), else the account's newest
   * certificate for exactly these identifiers, with a key of the same type (`keyType`, as
   * `PublicKeyInfo.description`: RSA-2048, ECDSA-P-256...), that nothing replaced yet. A client
   * keeping an RSA and an ECDSA certificate for the same names (Apache's `MDPrivateKeys`, certbot's
   * two lineages, acme.sh `--ecc`) renews each on its own; neither is the other's next version.
   */
  private async predecessorOf(order: AcmeOrderView, keyType: string): Promise<AcmeCertificateRow | null> {
    if (order.replaces) return this.certificates.byRenewalId(order.replaces);
    const candidates = await this.certificates.unreplacedForIdentifiers(order.account_id, order.identifiers);
    return candidates.find((candidate) => leafKeyType(candidate.pem_chain) === keyType) ?? null;
  }

  /**
   * Finalize under a certificate profile requiring approval (ADR 0065, 0068 amendment): the CSR
   * waits in an enrollment approval of issuance, one per order (a retried finalize of a ready
   * order finds the approval it opened), and the order is processing until it is decided.
   */
  private async holdForApproval(
    order: AcmeOrderView,
    profile: AcmeProfileSettings,
    accountRow: AcmeAccountRow | null,
    csrPem: string,
    urls: AcmeUrls,
    rules: {
      validityDays: number | null;
      validity: RequestedValidity;
      mustStaple: boolean;
      extendedKeyUsage: ProfileEkuName[] | undefined;
      certified: CertifiedNames;
      keyType: string;
    },
  ): Promise<AcmeHttpResponse> {
    if (!this.deps.approvals)
      throw new AcmeProblem('serverInternal', 'approvals are not reachable from this server');
    const renews = (await this.predecessorOf(order, rules.keyType))?.certificate_id;
    const { approvalId } = await this.deps.approvals.request({
      orderId: order.id,
      accountId: order.account_id,
      profileId: profile.id,
      certificateProfileId: profile.certificateProfileId!,
      csrPem,
      certified: rules.certified,
      ...(profile.issuerId ? { issuerId: profile.issuerId } : {}),
      ...ownerOf(accountRow, profile),
      ...(rules.validityDays ? { validityDays: rules.validityDays } : {}),
      ...(rules.validity.notBefore ? { notBefore: rules.validity.notBefore } : {}),
      ...(rules.validity.notAfter ? { notAfter: rules.validity.notAfter } : {}),
      ...(rules.mustStaple ? { mustStaple: true } : {}),
      ...(rules.extendedKeyUsage ? { extendedKeyUsage: rules.extendedKeyUsage } : {}),
      ...(renews ? { versionOf: renews } : {}),
      expiresAt: approvalDeadline(
        order.expires_at,
        new Date(),
        this.checksCaa(profile) ? CAA_RECHECK_AFTER_MS : null,
      ),
    });
    if (!(await this.orders.awaitApproval(order.id, approvalId)))
      throw new AcmeProblem('orderNotReady', 'the order is not ready (it is being finalized already)');
    return this.orderAnswer({ ...order, status: 'processing', approval_id: approvalId }, urls, {
      Location: urls.order(order.id),
    });
  }

  /**
   * A processing order waiting for its approval, polled: once issued, its certificate is stored
   * and the order valid; rejected, expired or failed, the order is invalid with why; otherwise
   * it stays processing. Answers the order as it now stands (whichever replica moved it).
   */
  private async pickUpApproval(
    order: AcmeOrderView,
    accountRow: AcmeAccountRow | null,
  ): Promise<AcmeOrderView> {
    if (!this.deps.approvals) return order;
    let outcome: AcmeApprovalOutcome;
    try {
      outcome = await this.deps.approvals.outcome(order.approval_id!);
    } catch (error) {
      // Issuance unreachable: the order is still processing, and the client polls again.
      this.deps.onBackgroundError?.(error);
      return order;
    }
    const next = nextOrderStatus('processing', orderEventFromApproval(outcome.state));
    if (!next.ok || next.to === 'processing') return order;
    if (outcome.state === 'issued') {
      const profile = await this.profiles.get(order.profile_id);
      // Issuance recorded it in the inventory when it issued it.
      await this.storeIssued(
        order,
        outcome.certificate,
        { profileId: order.profile_id, ...ownerOf(accountRow, profile), approvalId: order.approval_id! },
        { inventoryId: outcome.inventoryId },
      );
    } else if (outcome.state !== 'pending') {
      const ended = approvalEndedProblem(outcome.state, outcome.reason);
      await this.orders.setOrderStatus(order.id, 'processing', next.to, ended.toDocument());
    }
    return (await this.orders.orderView(order.id))!;
  }

  /** The certificate profile the order's ACME profile names, or null (ADR 0068). */
  private async certificateProfileOf(profile: AcmeProfileSettings): Promise<AcmeCertificateProfile | null> {
    if (!profile.certificateProfileId) return null;
    if (!this.deps.issuer.certificateProfile)
      throw new AcmeProblem('serverInternal', 'certificate profiles cannot be read here');
    return this.deps.issuer.certificateProfile(profile.certificateProfileId);
  }

  /** RFC 9773: the suggested renewal window of a certificate this server issued (no JWS). */
  private async renewalInfo(certId: string): Promise<AcmeHttpResponse> {
    if (!isRenewalCertId(certId))
      throw new AcmeProblem('malformed', 'the certificate identifier is not <AKI>.<serial>');
    // The window an operator moved earlier (renew-early) and the explanationURL come with it.
    const certificate = await new AcmeOperationsStore(this.deps.executor).renewalInfo(certId);
    if (!certificate) throw acmeNotFound('certificate');
    return json(200, renewalInfoAnswer(certificate, this.deps.revocationExplanationUrl), {
      'Retry-After': String(RENEWAL_INFO_RETRY_AFTER_SECONDS),
    });
  }

  /**
   * RFC 8555 7.4.2: `cert/{id}` answers the default chain, `cert/{id}/{n}` the n-th alternate (a
   * chain of the same leaf to another trust anchor); each answer links the others with
   * rel="alternate".
   */
  private readonly certificate: Handler = async (request, urls, id, _profile, alternate) => {
    const { account, resource: certificate } = await this.authenticate(
      request,
      urls,
      'kid',
      CertificateStore.byIdRead(id!),
    );
    if (!certificate) throw acmeNotFound('certificate');
    if (certificate.account_id !== account!.id)
      throw new AcmeProblem('unauthorized', 'the certificate belongs to another account');
    const chains = [certificate.pem_chain, ...certificate.alternate_chains];
    const index = alternate === undefined ? 0 : Number(alternate);
    if (index >= chains.length) throw acmeNotFound('certificate chain');
    const chainUrl = (n: number) => (n === 0 ? urls.certificate(id!) : `${urls.certificate(id!)}/${n}`);
    const links = chains.flatMap((_, n) => (n === index ? [] : [`<${chainUrl(n)}>;rel="alternate"`]));
    const format = certificateFormatFor(request.accept);
    return {
      status: 200,
      headers: {
        'Content-Type': CERTIFICATE_FORMATS[format],
        Vary: 'Accept',
        ...(links.length ? { Link: links } : {}),
      },
      body: certificateIn(format, chains[index]),
    };
  };

  private readonly revokeCert: Handler = async (request, urls) => {
    const { account, payload, jwk } = await this.authenticate(request, urls, 'either');
    if (payload.postAsGet || typeof payload.json.certificate !== 'string')
      throw new AcmeProblem('malformed', 'revokeCert needs {"certificate": <base64url DER>}');
    const reasonCode = payload.json.reason ?? 0;
    const reason = typeof reasonCode === 'number' ? REVOCATION_REASONS[reasonCode] : undefined;
    if (!reason) throw new AcmeProblem('badRevocationReason', `reason ${String(reasonCode)} is not accepted`);
    let x509: X509Certificate;
    let serial: string;
    try {
      x509 = new X509Certificate(Buffer.from(payload.json.certificate, 'base64url'));
      // The serial as every store keeps it (pki's serialHex: a leading 0 digit kept, as in 0a...).
      serial = parseCertificate(x509.raw).serialNumber;
    } catch {
      throw new AcmeProblem('malformed', 'certificate is not a DER X.509 certificate');
    }
    const der = x509.raw;
    const certificate = (await this.certificates.bySerial(serial)).find((c) =>
      new X509Certificate(c.pem_chain).raw.equals(der),
    );
    if (!certificate) throw acmeNotFound('certificate');
    if (account) {
      if (!(await this.mayRevoke(account.id, certificate)))
        throw new AcmeProblem(
          'unauthorized',
          'the certificate was not issued to this account, which does not hold valid authorizations for all its identifiers',
        );
    } else if (!jwkMatchesKey(jwk, x509.publicKey)) {
      throw new AcmeProblem(
        'unauthorized',
        "the request is signed neither by the account nor by the certificate's key",
      );
    }
    // A certificateHold is not final (RFC 5280 5.3.1): a revokeCert replaces it with its reason.
    if (certificate.revoked_at && certificate.revocation_reason !== HOLD)
      throw new AcmeProblem('alreadyRevoked', 'the certificate is already revoked');
    const revoked = await this.deps.issuer.revoke({
      issuerId: certificate.issuer_id,
      serialHex: certificate.serial_hex,
      reason,
    });
    // Revoked before by an operator, or by a concurrent request: what the issuer recorded is kept
    // here too (its revocation event may not have reached this service yet).
    if (revoked.alreadyRevoked) {
      await this.certificates.markRevoked(certificate.id, revoked.reason, revoked.revokedAt);
      throw new AcmeProblem('alreadyRevoked', 'the certificate is already revoked');
    }
    await this.deps.transaction(async (executor) => {
      await new CertificateStore(executor).markRevoked(certificate.id, revoked.reason, revoked.revokedAt);
      await this.audit(
        executor,
        AuditAction.AcmeCertificateRevoked,
        'certificate',
        certificate.serial_hex,
        account?.id ?? certificate.account_id,
        {
          issuer_id: certificate.issuer_id,
          reason,
          // 'authorized_account': another account holding authorizations for every identifier.
          by: !account
            ? 'certificate_key'
            : account.id === certificate.account_id
              ? 'account'
              : 'authorized_account',
        },
      );
    });
    return { status: 200, headers: {} };
  };

  /**
   * RFC 8555 7.6: an account may revoke a certificate it ordered, or one whose every identifier it
   * holds a valid authorization for (it has proven control of them all).
   */
  private async mayRevoke(accountId: string, certificate: AcmeCertificateRow): Promise<boolean> {
    if (certificate.account_id === accountId) return true;
    const order = await this.orders.order(certificate.order_id);
    if (!order) return false;
    const held = await this.orders.validAuthorizations(accountId, order.identifiers, new Date());
    return held.length === order.identifiers.length;
  }

  private readonly keyChange: Handler = async (request, urls) => {
    const { payload, header, accountRow } = await this.authenticate(request, urls, 'kid');
    if (payload.postAsGet) throw new AcmeProblem('malformed', 'keyChange needs the inner JWS as payload');
    const current = accountRow!;
    const { newJwk, newThumbprint } = await checkKeyChange(payload.json, {
      url: `${request.origin}${request.path}`,
      // Step 7 compares with the outer kid, the account URL as this client knows it.
      accountUrl: header.kid!,
      accountJwk: current.jwk,
    });
    const outcome = await this.deps
      .transaction(async (executor) => {
        const changed = await new AccountStore(executor).changeKey(
          current.id,
          current.jwk_thumbprint,
          newJwk,
          newThumbprint,
        );
        if (changed.result === 'taken') throw changed;
        if (changed.result === 'changed')
          await this.audit(
            executor,
            AuditAction.AcmeAccountKeyChanged,
            'acme_account',
            current.id,
            current.id,
            {
              old_jwk_thumbprint: current.jwk_thumbprint,
              jwk_thumbprint: newThumbprint,
            },
          );
        return changed;
      })
      .catch(async (error) => {
        // The unique key index refused it: another account got the key meanwhile.
        const holder =
          (error as { result?: string }).result === 'taken'
            ? await this.accounts.byThumbprint(newThumbprint)
            : null;
        if (!holder) throw error;
        return { result: 'conflict' as const, accountId: holder.id };
      });
    if (outcome.result === 'conflict') {
      // RFC 8555 7.3.5: "...the server MUST return 409 (Conflict)" with the account of that key.
      const conflict = problem(
        new AcmeProblem('malformed', 'another account already uses the new key', { status: 409 }),
      );
      conflict.headers['Location'] = urls.account(outcome.accountId);
      return conflict;
    }
    if (outcome.result === 'stale')
      throw new AcmeProblem('unauthorized', 'the account key changed meanwhile');
    return this.accountAnswer((await this.accounts.byId(current.id))!, urls, 200);
  };

  private async audit(
    executor: SqlExecutor,
    action: string,
    resourceType: string,
    resourceId: string,
    accountId: string,
    details: Record<string, unknown>,
  ): Promise<void> {
    await this.deps.audit?.(executor, this.auditRecord(action, resourceType, resourceId, accountId, details));
  }

  private auditRecord(
    action: string,
    resourceType: string,
    resourceId: string,
    accountId: string,
    details: Record<string, unknown>,
  ): AuditRecord {
    return {
      action,
      event_category: resourceType === 'acme_account' ? 'auth' : 'cert_lifecycle',
      actor_id: `acme-account:${accountId}`,
      resource_type: resourceType,
      resource_id: resourceId,
      outcome: 'success',
      details,
    };
  }

  /** The retry sweep: validations a lost replica left (its lease ran out) are run again. */
  async retryLostValidations(): Promise<number> {
    let retried = 0;
    for (const id of await this.orders.unclaimedProcessing()) {
      const [row] = (await this.deps.executor.query(
        `SELECT c.token, a.jwk FROM acme_challenges c JOIN acme_authorizations z ON z.id = c.authorization_id
         JOIN acme_accounts a ON a.id = z.account_id WHERE c.id = $1`,
        [id],
      )) as { token: string; jwk: JWK }[];
      if (!row) continue;
      if ((await this.validate(id, keyAuthorization(row.token, await jwkThumbprint(row.jwk)))) !== null)
        retried++;
    }
    return retried;
  }

  static readonly algorithms = ACME_JWS_ALGORITHMS;
}

/** The rate-limit key of an account's failed validations of one identifier (keys are at most 200 characters). */
/** Who owns what an account orders: its EAB key's owner and team, else the profile's. */
function ownerOf(
  account: AcmeAccountRow | null,
  profile: AcmeProfileSettings | null,
): { owner: string | null; team: string | null } {
  return { owner: account?.owner ?? profile?.owner ?? null, team: account?.team ?? profile?.team ?? null };
}

/** The key type of a stored chain's leaf, as `PublicKeyInfo.description`; '' when unreadable. */
function leafKeyType(pemChain: string): string {
  try {
    return parseCertificates(pemChain)[0]?.publicKey.description ?? '';
  } catch {
    return '';
  }
}

function failedValidationKey(accountId: string, identifier: { type: string; value: string }): string {
  const digest = createHash('sha256').update(`${identifier.type}:${identifier.value}`).digest('base64url');
  return `failed-validations:${accountId}:${digest}`;
}

/** A stored row as the domain's expiry rules read it. */
function timed<S>(row: { status: S; expires_at: Date }): { status: S; expires: Date } {
  return { status: row.status, expires: row.expires_at };
}

function accountObject(account: AcmeAccountRow, urls: AcmeUrls, terms: TermsRules): Record<string, unknown> {
  return {
    status: account.status,
    contact: account.contact,
    // RFC 8555 7.3.3: false while changed terms wait for the account's agreement.
    termsOfServiceAgreed: agreedToCurrentTerms(account, terms),
    orders: urls.accountOrders(account.id),
    createdAt: account.created_at.toISOString(),
  };
}

function challengeObject(
  challenge: AcmeChallengeRow,
  urls: AcmeUrls,
  issuerDomainNames: readonly string[],
  accountId: string,
): Record<string, unknown> {
  return {
    type: challenge.type,
    url: urls.challenge(challenge.id),
    status: challenge.status,
    // draft-ietf-acme-dns-persist: no token; the names a record may give for this CA instead,
    // under -02's name and -00/-01's, and (-01 3.1) the account URL a record may name.
    ...(challenge.type === 'dns-persist-01'
      ? {
          issuerDomainNames: [...issuerDomainNames],
          'issuer-domain-names': [...issuerDomainNames],
          accounturi: urls.account(accountId),
        }
      : { token: challenge.token }),
    ...(challenge.validated_at ? { validated: challenge.validated_at.toISOString() } : {}),
    ...(challenge.error ? { error: challenge.error } : {}),
  };
}

function appendLink(existing: string | string[] | undefined, link: string): string[] {
  if (existing === undefined) return [link];
  return [...(Array.isArray(existing) ? existing : [existing]), link];
}

/** The `kid` of a flattened JWS's protected header, if it reads as one (checked properly later). */
function protectedHeaderKid(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const encoded = (body as { protected?: unknown }).protected;
  if (typeof encoded !== 'string') return undefined;
  try {
    const kid = (JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8')) as { kid?: unknown }).kid;
    return typeof kid === 'string' ? kid : undefined;
  } catch {
    return undefined;
  }
}

/** `work`'s value when it settles within `ms`, else undefined (`work` goes on). */
async function settledWithin<T>(work: Promise<T>, ms: number): Promise<T | undefined> {
  if (ms <= 0) return undefined;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => (timer = setTimeout(resolve, ms, undefined)));
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** A PEM chain in a download format of RFC 8555 7.4.2: as it is, its leaf in DER, or certs-only PKCS#7. */
function certificateIn(format: CertificateFormat, pemChain: string): string | Buffer {
  if (format === 'pem-chain') return pemChain;
  const ders = decodeAll(pemChain, [PemLabel.certificate], { what: 'certificate chain' });
  return format === 'pkix-cert' ? ders[0] : certsOnly(ders.map((der) => new Uint8Array(der)));
}
