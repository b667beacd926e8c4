import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import {
  AuditAction,
  AuditRecord,
  CaCertificateDto,
  RevokeCaRequest,
  RevocationReason,
  CertificateIssued,
  CertlaneError,
  CreateCaRequest,
  DEFAULT_ISSUER_ID,
  ErrorCode,
  IssueCertificateRequest,
  IssuedCertificateDto,
  IssueOcspResponderRequest,
  IssuerCaInfo,
  IssuerTestResult,
  ListCaCertificatesRequest,
  OcspResponderCertificate,
  Page,
  RequestContext,
  resolvePage,
  SignDigestRequest,
  SignDigestResponse,
  SYSTEM_ACTOR,
  UploadCaCertificateRequest,
  CaKeyAlgorithm,
} from '@certlane/contracts';
import {
  Certificate,
  CertificateAuthority,
  exportPem,
  IssuedCertificateResult,
  IssuerConnector,
  IssueRequest,
  isPendingIssuance,
  ocspResponderTemplate,
  parseCertificate,
  parseCertificates,
  parseCsr,
  pemCertificateBlocks,
  PendingIssuance,
  SoftwareKeyProvider,
  Signer,
  toPem,
} from '@certlane/pki';
import {
  CERTLANE_CONFIG,
  CertlaneConfig,
  GroupCommit,
  OutboundTlsOptions,
  outboundTlsOptions,
  OutboxItem,
  outboxToken,
  ServiceOutbox,
} from '@certlane/platform';
import { caRevocationRefusal } from '@certlane/issuance-domain';
import { EntityManager } from 'typeorm';
import { issuerAudit, issuerNotFound, LocalCaHooks } from '../issuers/issuer.service';
import { IssuerRepository, IssuerRow } from '../issuers/issuer.repository';
import { caSubject, createChild, createRoot, createSubCaRequest, NewCa } from './ca-factory';
import { CaKeyCache } from './ca-key-cache';
import { CaRepository, caDto, CaRow, CrossCertificateOnChain, IssuedRow } from './ca.repository';
import { signDigest } from './digest-signer';
import { IssuanceSecrets } from '../issuers/issuance-secrets';
import { ISSUER_CONNECTORS, IssuerConnectors } from '../issuers/issuer-connectors';
import { IssuerDependencies, IssuingCa, RevocationUrls } from '../issuers/issuer-dependencies';
import { asInputError } from './pki-errors';
import { asCertlaneError } from '../issuers/issuer-errors';
import { ACME_ACCOUNTS, AcmeAccounts } from '../issuers/acme-accounts';
import { LocalCaConfig, localCaConnectorFactory, revocationUrls } from './local-ca-connector';
import { ReadCoalescer } from './read-coalescer';
import { auditRecord, notFound, pageOf, UnitOfWork } from '@certlane/issuance-data-access';
import { alternateChains } from './alternate-chains';
import { CrossCertificateRepository } from './cross-certificate.repository';

const ROOT_VALIDITY_DAYS = 7300;
const INTERMEDIATE_VALIDITY_DAYS = 3650;
/** Delegated OCSP responder certificates are short-lived; the revocation service renews them. */
export const OCSP_RESPONDER_VALIDITY_DAYS = 30;

const caNotFound = (id: string) => notFound(ErrorCode.CaNotFound, 'CA', id);
const notLocal = (row: IssuerRow, what: string) =>
  new CertlaneError(
    ErrorCode.NotImplemented,
    `issuer ${row.id} is of type ${row.kind}, which cannot ${what} yet`,
  );

/** What recording an issued certificate writes: the serial, its audit record, its event. */
export interface IssuedRecord {
  row: IssuedRow;
  audit: AuditRecord;
  event: CertificateIssued;
}

/** The audit records of issued serials, then their `issuance.v1.certificate.issued` events. */
function issuedOutboxItems(records: IssuedRecord[]): OutboxItem[] {
  return [
    ...records.map((r) => ({ audit: r.audit })),
    ...records.map((r) => ({ subject: 'issuance.v1.certificate.issued' as const, data: r.event })),
  ];
}

/** A certificate signed but not yet recorded (see LocalCaService.sign). */
export interface SignedCertificate {
  certificate: IssuedCertificateDto;
  record: IssuedRecord;
  /** The leaf parsed, when the connector handed it over parsed. */
  leaf?: Certificate;
}

function newCaId(): string {
  return `ca-${randomBytes(8).toString('hex')}`;
}

/**
 * The local CA: CA trees per issuer (roots, intermediates, sub-CAs under external roots), issuance
 * from CSRs, revocation, and what the revocation service needs (CA info, digest signing, delegated
 * OCSP responder certificates). CA private keys are unsealed in memory only to sign (ADR 0021).
 */
@Injectable()
export class LocalCaService implements LocalCaHooks {
  private readonly keys = new SoftwareKeyProvider();
  /** Unsealed CA signers (and their issuing authorities), per CA; dropped when a CA is retired. */
  private readonly caKeys = new CaKeyCache((ca) =>
    this.keys.load({
      provider: ca.key_provider,
      reference: this.secrets.openKey(ca.id, ca.private_key_sealed),
    }),
  );

  /** Issuer and issuing CA rows for issuance, one read per round trip per issuer under load. */
  private readonly issuerReads = new ReadCoalescer((issuerId: string) =>
    this.cas.findIssuerWithIssuingCa(issuerId),
  );

  /**
   * What follows each cross-certificate in the alternate chains it gives (itself, then its
   * parent's chain), per cross-certificate id: neither ever changes once stored (ADR 0070).
   */
  private readonly crossChainTails = new Map<string, Promise<string>>();

  /** Trust of the connectors that call a remote CA over TLS (read once: the bundle file is not reloaded). */
  private outboundTlsOptions?: OutboundTlsOptions;

  private get outboundTls(): OutboundTlsOptions {
    this.outboundTlsOptions ??= outboundTlsOptions(this.config.outboundTls);
    return this.outboundTlsOptions;
  }

  /** What the connectors read of issuer configs, per sealed config (see connectorConfig). */
  private readonly connectorConfigs = new Map<string, unknown>();

  /**
   * Issued certificates of the bus `issue` command, their audit records and their
   * `issuance.v1.certificate.issued` events, written by group commit (one transaction per batch).
   */
  private readonly issuedWriter = new GroupCommit<IssuedRecord>(async (records) => {
    await this.unitOfWork.run((manager) => this.writeIssued(manager, records));
  });

  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly cas: CaRepository,
    private readonly crossCertificates: CrossCertificateRepository,
    private readonly issuers: IssuerRepository,
    private readonly secrets: IssuanceSecrets,
    @Inject(outboxToken('issuance')) private readonly outbox: ServiceOutbox,
    @Inject(CERTLANE_CONFIG) private readonly config: CertlaneConfig,
    @Inject(ISSUER_CONNECTORS) private readonly connectors: IssuerConnectors,
    @Inject(ACME_ACCOUNTS) private readonly acmeAccounts: AcmeAccounts,
  ) {}

  // ---- CA trees ----

  /** A fresh local_ca issuer's root and issuing intermediate; returns the intermediate's id. */
  async provisionCas(
    manager: EntityManager,
    issuer: IssuerRow,
    config: Record<string, unknown>,
    ids?: { root: string; intermediate: string },
  ): Promise<string> {
    const algorithm = config.ca_algorithm as CaKeyAlgorithm | undefined;
    const organization = (config.organization as string | undefined) ?? 'Certlane';
    const root = await createRoot(this.keys, {
      subject: caSubject(`${issuer.name} Root CA`.slice(0, 64), organization),
      keyAlgorithm: algorithm,
      validityDays: ROOT_VALIDITY_DAYS,
    });
    const rootId = ids?.root ?? newCaId();
    await this.storeCa(manager, rootId, issuer.id, null, root);
    const intermediate = await createChild(
      this.keys,
      {
        certificatePem: root.certificatePem as string,
        signer: await this.keys.load({ provider: 'software', reference: root.pkcs8 }),
        revocation: this.childCaRevocationUrls(issuer, rootId),
      },
      {
        subject: caSubject(`${issuer.name} Issuing CA 1`.slice(0, 64), organization),
        keyAlgorithm: algorithm,
        validityDays: INTERMEDIATE_VALIDITY_DAYS,
        pathLength: 0,
      },
    );
    const intermediateId = ids?.intermediate ?? newCaId();
    await this.storeCa(manager, intermediateId, issuer.id, rootId, intermediate);
    return intermediateId;
  }

  /**
   * Stores a new CA; a child signed here is also recorded among what its issuer issued (purpose
   * 'ca', under its parent, ADR 0075), so the parent's OCSP answers for it and it can be revoked.
   */
  private async storeCa(
    manager: EntityManager,
    id: string,
    issuerId: string,
    parentId: string | null,
    ca: NewCa,
  ): Promise<void> {
    await this.insertCa(manager, id, issuerId, parentId, ca);
    if (!parentId || !ca.certificatePem) return;
    await this.recordCaCertificate(manager, {
      issuer_id: issuerId,
      serial_hex: ca.serialHex as string,
      ca_id: parentId,
      fingerprint_sha256: ca.fingerprintSha256 as string,
      subject: ca.subject,
      not_before: ca.notBefore as Date,
      not_after: ca.notAfter as Date,
    });
  }

  /**
   * A CA certificate (a child CA or a cross-certificate) signed by the CA `row.ca_id` of issuer
   * `row.issuer_id`, recorded among what the issuer issued with its `issued` event (ADR 0075).
   */
  async recordCaCertificate(manager: EntityManager, row: Omit<IssuedRow, 'purpose'>): Promise<void> {
    await this.cas.recordIssued(manager, { ...row, purpose: 'ca' });
    await this.outbox.add(manager, 'issuance.v1.certificate.issued', {
      issuer_id: row.issuer_id,
      ca_id: row.ca_id,
      serial_hex: row.serial_hex,
      not_before: row.not_before.toISOString(),
      not_after: row.not_after.toISOString(),
      fingerprint_sha256: row.fingerprint_sha256,
      issued_at: new Date().toISOString(),
    });
  }

  /**
   * Records a CA certificate's serial revoked under its issuer and publishes the `revoked` event
   * (in the caller's transaction); returns when it was revoked (ADR 0075).
   */
  async revokeCaSerial(
    manager: EntityManager,
    issuerId: string,
    serial: string,
    reason: RevocationReason,
    actorId?: string,
  ): Promise<Date> {
    const [created] = await this.cas.revokeMany(manager, issuerId, [serial], reason);
    const revokedAt = created?.revoked_at ?? new Date();
    await this.outbox.add(
      manager,
      'issuance.v1.certificate.revoked',
      { issuer_id: issuerId, serial_hex: serial, reason, revoked_at: revokedAt.toISOString() },
      actorId,
    );
    return revokedAt;
  }

  private insertCa(manager: EntityManager, id: string, issuerId: string, parentId: string | null, ca: NewCa) {
    return this.cas.insert(manager, {
      id,
      issuer_id: issuerId,
      parent_id: parentId,
      subject: ca.subject,
      certificate_pem: ca.certificatePem ?? null,
      csr_pem: ca.csrPem ?? null,
      private_key_sealed: this.secrets.sealKey(id, ca.pkcs8),
      status: ca.certificatePem ? 'active' : 'pending',
      serial_hex: ca.serialHex ?? null,
      not_before: ca.notBefore ?? null,
      not_after: ca.notAfter ?? null,
    });
  }

  /**
   * The baseline seed (every start, applied once across replicas and restarts): issuer
   * `iss-local` with root `ca-local-root` and issuing intermediate `ca-local-issuing-1`.
   */
  async seedDefaultIssuer(): Promise<boolean> {
    return this.unitOfWork.run(async (manager) => {
      if (await this.cas.claimSeed(manager, 'default-local-ca')) return false;
      if (await this.issuers.find(DEFAULT_ISSUER_ID, manager)) return false;
      const config = {};
      let row = await this.issuers.insert(manager, {
        id: DEFAULT_ISSUER_ID,
        name: 'Local CA',
        kind: 'local_ca',
        config_sealed: this.secrets.sealConfig(DEFAULT_ISSUER_ID, config),
        config_public: config,
      });
      const caId = await this.provisionCas(manager, row, config, {
        root: 'ca-local-root',
        intermediate: 'ca-local-issuing-1',
      });
      await this.issuers.setIssuingCa(manager, DEFAULT_ISSUER_ID, caId);
      row = (await this.issuers.find(DEFAULT_ISSUER_ID, manager)) as IssuerRow;
      await this.outbox.audit(
        manager,
        issuerAudit(
          AuditAction.IssuerCreated,
          DEFAULT_ISSUER_ID,
          { actor_id: SYSTEM_ACTOR },
          {
            baseline_seed: true,
            issuer: { id: row.id, name: row.name, type: row.kind, issuing_ca_id: caId },
          },
        ),
      );
      return true;
    });
  }

  async listCas(request: ListCaCertificatesRequest): Promise<Page<CaCertificateDto>> {
    const page = resolvePage(request);
    const { rows, total } = await this.cas.list(page, request.issuer_id);
    return pageOf(rows.map(caDto), total, page);
  }

  async getCa(id: string): Promise<CaCertificateDto> {
    const row = await this.cas.find(id);
    if (!row) throw caNotFound(id);
    return caDto(row);
  }

  async createCa(request: CreateCaRequest, context?: RequestContext): Promise<CaCertificateDto> {
    const issuer = await this.issuers.find(request.issuer_id);
    if (!issuer) throw issuerNotFound(request.issuer_id);
    if (issuer.kind !== 'local_ca') throw notLocal(issuer, 'hold CA certificates');
    if (request.external && request.parent_id) {
      throw CertlaneError.validation([
        { field: 'parent_id', message: 'a CA is either external (CSR out) or under parent_id, not both' },
      ]);
    }
    // It was accepted and then dropped: a pending CA cannot issue, and nothing kept the wish.
    if (request.external && request.issuing) {
      throw CertlaneError.validation([
        {
          field: 'issuing',
          message:
            'an external CA becomes issuing when its certificate is installed: send issuing with POST /api/v1/intermediate-cas/{id}/certificate',
        },
      ]);
    }
    const options = {
      subject: caSubject(request.common_name, request.organization),
      keyAlgorithm: request.key_algorithm,
      validityDays:
        request.validity_days ?? (request.parent_id ? INTERMEDIATE_VALIDITY_DAYS : ROOT_VALIDITY_DAYS),
      pathLength: request.path_length,
    };
    let made: NewCa;
    if (request.external) {
      made = await createSubCaRequest(this.keys, options);
    } else if (request.parent_id) {
      const parent = await this.cas.find(request.parent_id);
      if (!parent) throw caNotFound(request.parent_id);
      if (parent.issuer_id !== issuer.id) {
        throw CertlaneError.validation([
          { field: 'parent_id', message: `CA ${parent.id} belongs to another issuer` },
        ]);
      }
      this.assertActive(parent);
      try {
        made = await createChild(
          this.keys,
          {
            certificatePem: parent.certificate_pem as string,
            signer: await this.signer(parent),
            revocation: this.childCaRevocationUrls(issuer, parent.id),
          },
          options,
        );
      } catch (error) {
        throw asInputError(error, `CA ${parent.id} cannot sign a child CA`);
      }
    } else {
      made = await createRoot(this.keys, options);
    }
    const id = newCaId();
    return this.unitOfWork.run(async (manager) => {
      await this.storeCa(manager, id, issuer.id, request.parent_id ?? null, made);
      if (request.issuing && made.certificatePem) await this.issuers.setIssuingCa(manager, issuer.id, id);
      const row = (await this.cas.find(id, manager)) as CaRow;
      await this.outbox.audit(
        manager,
        issuerAudit(
          AuditAction.CaCreated,
          id,
          context,
          {
            issuer_id: issuer.id,
            parent_id: row.parent_id,
            subject: row.subject,
            status: row.status,
            issuing: row.issuing === true,
            serial_hex: row.serial_hex,
          },
          'ca_certificate',
        ),
      );
      return caDto(row);
    });
  }

  /** A pending sub-CA gets the certificate its external root signed; it must certify the CA's own key. */
  async installCertificate(
    request: UploadCaCertificateRequest,
    context?: RequestContext,
  ): Promise<CaCertificateDto> {
    return this.unitOfWork.run(async (manager) => {
      const ca = await this.cas.find(request.id, manager, true);
      if (!ca) throw caNotFound(request.id);
      if (ca.status !== 'pending') {
        throw new CertlaneError(
          ErrorCode.CaNotActive,
          `CA ${ca.id} is ${ca.status}, not waiting for a certificate`,
        );
      }
      let certificate;
      let chain: string | null = null;
      try {
        certificate = parseCertificate(request.certificate_pem);
        new CertificateAuthority({ certificate, signer: await this.signer(ca) });
        if (request.chain_pem) {
          chain = parseCertificates(request.chain_pem)
            .map((c) => toPem('CERTIFICATE', c.der))
            .join('');
        }
      } catch (error) {
        throw asInputError(error, 'CA certificate refused');
      }
      await this.cas.install(manager, ca.id, {
        certificate_pem: toPem('CERTIFICATE', certificate.der),
        external_chain_pem: chain,
        serial_hex: certificate.serialNumber,
        subject: certificate.subject.text,
        not_before: certificate.notBefore,
        not_after: certificate.notAfter,
      });
      const issuer = ca.issuer_id ? await this.issuers.find(ca.issuer_id, manager) : null;
      if (issuer && (request.issuing || !issuer.issuing_ca_id))
        await this.issuers.setIssuingCa(manager, issuer.id, ca.id);
      const row = (await this.cas.find(ca.id, manager)) as CaRow;
      await this.outbox.audit(
        manager,
        issuerAudit(
          AuditAction.CaCertificateInstalled,
          ca.id,
          context,
          { issuer_id: ca.issuer_id, subject: row.subject, serial_hex: row.serial_hex },
          'ca_certificate',
        ),
      );
      return caDto(row);
    });
  }

  /** Stops new issuance under the CA; it keeps signing CRLs and OCSP for what it issued. */
  async retireCa(id: string, context?: RequestContext): Promise<CaCertificateDto> {
    const dto = await this.unitOfWork.run(async (manager) => {
      const ca = await this.cas.find(id, manager, true);
      if (!ca) throw caNotFound(id);
      if (ca.status !== 'active') {
        throw new CertlaneError(
          ErrorCode.CaNotActive,
          `CA ${id} is ${ca.status}; only an active CA can be retired`,
        );
      }
      await this.cas.retire(manager, id);
      const row = (await this.cas.find(id, manager)) as CaRow;
      await this.outbox.audit(
        manager,
        issuerAudit(
          AuditAction.CaRetired,
          id,
          context,
          { issuer_id: ca.issuer_id, subject: ca.subject },
          'ca_certificate',
        ),
      );
      return caDto(row);
    });
    this.caKeys.drop(id);
    return dto;
  }

  /**
   * Revokes a CA the local CA signed under one of its issuer's CAs (ADR 0075): its serial is
   * recorded revoked under its issuer, so its parent's CRL lists it and the parent's OCSP responder
   * answers revoked, and the CA is marked revoked and issues nothing more, nor do the CAs below it
   * (retired: what they would issue chains to a revoked CA). Final: a root, a sub-CA of an external
   * root, a pending CA or one already revoked is refused (409).
   */
  async revokeCa(request: RevokeCaRequest, context?: RequestContext): Promise<CaCertificateDto> {
    const reason = request.reason ?? 'unspecified';
    let retired: string[] = [];
    const dto = await this.unitOfWork.run(async (manager) => {
      const ca = await this.cas.find(request.id, manager, true);
      if (!ca) throw caNotFound(request.id);
      const refusal = caRevocationRefusal(ca);
      if (refusal)
        throw new CertlaneError(ErrorCode.CaNotActive, refusal, { ca_id: ca.id, status: ca.status });
      const issuerId = ca.issuer_id as string;
      const serial = ca.serial_hex as string;
      const revokedAt = await this.revokeCaSerial(manager, issuerId, serial, reason, context?.actor_id);
      await this.cas.markRevoked(manager, ca.id, reason, revokedAt);
      const below = await this.cas.retireDescendants(manager, ca.id);
      retired = below.filter((row) => row.retired).map((row) => row.id);
      const keyIdentifiers = [ca.certificate_pem, ...below.map((row) => row.certificate_pem)].flatMap(
        (pem) => {
          const keyId = pem ? parseCertificate(pem).decoded.subjectKeyIdentifier : undefined;
          return keyId ? [keyId.toString('hex')] : [];
        },
      );
      await this.outbox.add(
        manager,
        'issuance.v1.ca.revoked',
        {
          issuer_id: issuerId,
          ca_id: ca.id,
          serial_hex: serial,
          key_identifiers: keyIdentifiers,
          retired_ca_ids: retired,
          reason,
          revoked_at: revokedAt.toISOString(),
        },
        context?.actor_id,
      );
      await this.outbox.audit(
        manager,
        issuerAudit(
          AuditAction.CaRevoked,
          ca.id,
          context,
          {
            issuer_id: issuerId,
            parent_id: ca.parent_id,
            subject: ca.subject,
            serial_hex: serial,
            reason,
            retired_ca_ids: retired,
          },
          'ca_certificate',
        ),
      );
      return caDto((await this.cas.find(ca.id, manager)) as CaRow);
    });
    for (const id of [request.id, ...retired]) this.caKeys.drop(id);
    return dto;
  }

  /** Where a CA certificate `parent` signs shows its revocation (none for a CA of no issuer). */
  async caRevocationUrls(parent: CaRow, manager?: EntityManager): Promise<RevocationUrls | undefined> {
    const issuer = parent.issuer_id ? await this.issuers.find(parent.issuer_id, manager) : null;
    return issuer ? this.childCaRevocationUrls(issuer, parent.id) : undefined;
  }

  /** Where a child of `parentId` shows its revocation: the parent's CRL and the issuer's OCSP. */
  private childCaRevocationUrls(issuer: IssuerRow, parentId: string): RevocationUrls {
    const config = this.connectorConfig(issuer, localCaConnectorFactory.validateConfig) as LocalCaConfig;
    return revocationUrls(this.config.revocationBaseUrl, issuer.id, parentId, config.publicationBaseUrl);
  }

  // ---- issuance ----

  private assertActive(ca: CaRow): void {
    if (ca.status !== 'active' || !ca.certificate_pem) {
      throw new CertlaneError(
        ErrorCode.CaNotActive,
        `CA ${ca.id} is ${ca.status}: it issues no new certificates`,
        { ca_id: ca.id, status: ca.status },
      );
    }
  }

  private signer(ca: CaRow): Promise<Signer> {
    return this.caKeys.signer(ca);
  }

  /** The signer of an active CA, for the cross-certificates it signs (CrossCertificateService). */
  caSigner(ca: CaRow): Promise<Signer> {
    this.assertActive(ca);
    return this.signer(ca);
  }

  /** A CA's own chain: its certificate, then its parents' up to its root (external ones too). */
  async ownChainPem(ca: CaRow): Promise<string> {
    return [ca.certificate_pem as string, ...(await this.parentsPem(ca))].join('');
  }

  /**
   * The alternate chains of a leaf whose default chain is `chainPem` (ADR 0070), through the
   * cross-certificates read with the issuing CA; undefined without any.
   */
  private async alternateChainsPem(
    chainPem: string,
    crossCertificates: readonly CrossCertificateOnChain[],
  ): Promise<string[] | undefined> {
    if (crossCertificates.length === 0) return undefined;
    const links = await Promise.all(
      crossCertificates.map(async ({ id, depth }) => ({ depth, pem: await this.crossChainTail(id) })),
    );
    return alternateChains(chainPem, links);
  }

  /** A cross-certificate, then its parent's own chain when its parent is held here; read once. */
  private crossChainTail(id: string): Promise<string> {
    let tail = this.crossChainTails.get(id);
    if (!tail) {
      tail = (async () => {
        const cross = await this.crossCertificates.find(id);
        if (!cross)
          throw new CertlaneError(ErrorCode.CrossCertificateNotFound, `cross-certificate ${id} is gone`);
        const parent = cross.parent_id ? await this.cas.find(cross.parent_id) : null;
        return cross.certificate_pem + (parent?.certificate_pem ? await this.ownChainPem(parent) : '');
      })();
      if (this.crossChainTails.size >= 256) this.crossChainTails.clear();
      this.crossChainTails.set(id, tail);
      tail.catch(() => {
        if (this.crossChainTails.get(id) === tail) this.crossChainTails.delete(id);
      });
    }
    return tail;
  }

  private async parentsPem(ca: CaRow, manager?: EntityManager): Promise<string[]> {
    const parents = await this.cas.parents(ca, manager);
    const pems = parents.map((p) => p.certificate_pem).filter((pem): pem is string => !!pem);
    const top = parents.length > 0 ? parents[parents.length - 1] : ca;
    if (top.external_chain_pem) pems.push(...pemCertificateBlocks(top.external_chain_pem));
    return pems;
  }

  /**
   * The issuer's CA `caId` (any status; it must belong to the issuer), else its issuing CA, for
   * CRL/OCSP material (ADR 0023); the issuer must be a local CA.
   */
  private async issuerCa(
    issuerId: string,
    what: string,
    caId?: string,
  ): Promise<{ issuer: IssuerRow; ca: CaRow }> {
    const issuer = await this.issuers.find(issuerId);
    if (!issuer) throw issuerNotFound(issuerId);
    if (issuer.kind !== 'local_ca') throw notLocal(issuer, what);
    const id = caId ?? issuer.issuing_ca_id;
    const ca = id ? await this.cas.find(id) : null;
    if (caId !== undefined && ca?.issuer_id !== issuer.id) throw caNotFound(caId);
    if (!ca || !ca.certificate_pem) {
      throw new CertlaneError(ErrorCode.CaNotActive, `issuer ${issuerId} has no CA certificate yet`);
    }
    return { issuer, ca };
  }

  /**
   * The issuer's connector, found through the registry by the issuer's kind (501 when the kind has
   * none; `what` names the operation asked). `issuingCaRow`: the issuing CA row when the caller has
   * just read it (undefined: read it when needed). `revocation`: the transaction a revocation runs
   * in and how it is recorded there (only revocation passes one).
   */
  private connector(
    issuer: IssuerRow,
    what: string,
    options: {
      issuingCaRow?: CaRow | null;
      revocation?: {
        manager: EntityManager;
        recordRevocations: IssuerDependencies['recordRevocations'];
      };
    } = {},
  ): IssuerConnector {
    const factory = this.connectors.factoryFor(issuer, what);
    const { issuingCaRow, revocation } = options;
    return factory.create(this.connectorConfig(issuer, factory.validateConfig), {
      issuerId: issuer.id,
      revocationBaseUrl: this.config.revocationBaseUrl,
      issuerScriptsDirectory: this.config.issuerScriptsDirectory,
      outboundTls: this.outboundTls,
      acmeAccounts: this.acmeAccounts,
      issuingCa: async (): Promise<IssuingCa> => {
        const ca =
          issuingCaRow !== undefined
            ? issuingCaRow
            : issuer.issuing_ca_id
              ? await this.cas.find(issuer.issuing_ca_id)
              : null;
        if (!ca) throw new CertlaneError(ErrorCode.CaNotActive, `issuer ${issuer.id} has no issuing CA`);
        this.assertActive(ca);
        const certificatePem = ca.certificate_pem as string;
        return {
          id: ca.id,
          certificatePem,
          parentsPem: await this.caKeys.parents(ca, certificatePem, () => this.parentsPem(ca)),
          signer: await this.signer(ca),
          authority: (urls) => this.caKeys.authority(ca, certificatePem, urls),
        };
      },
      recordRevocations:
        revocation?.recordRevocations ??
        (() => Promise.reject(new Error('revocation is recorded only inside a transaction'))),
      issuedSerials: (serials) =>
        this.cas.issuedSerials(revocation?.manager ?? this.cas.dataSource.manager, issuer.id, serials),
    });
  }

  /**
   * The issuer's connector for revoking in the caller's transaction (IssuerRevocation), recording
   * through `recordRevocations`; null when its kind has none or it cannot revoke (a script issuer
   * without a revoke command): its revocations are recorded locally.
   */
  revocationConnector(
    manager: EntityManager,
    issuer: IssuerRow,
    recordRevocations: IssuerDependencies['recordRevocations'],
  ): IssuerConnector | null {
    if (!this.connectors.has(issuer.kind)) return null;
    const connector = this.connector(issuer, 'revoke', { revocation: { manager, recordRevocations } });
    return connector.capabilities.revoke ? connector : null;
  }

  /**
   * The connector's view of an issuer's sealed config (its kind's `validateConfig`), opened once
   * per sealed value (the sealed string changes whenever the config does, so an entry is never
   * stale). Only the validated view is kept, not the opened config.
   */
  private connectorConfig(issuer: IssuerRow, validate: (config: unknown) => unknown): unknown {
    const key = `${issuer.id}\n${issuer.config_sealed}`;
    let config = this.connectorConfigs.get(key);
    if (config === undefined) {
      config = validate(this.secrets.openConfig(issuer.id, issuer.config_sealed));
      if (this.connectorConfigs.size >= 256) this.connectorConfigs.clear();
      this.connectorConfigs.set(key, config);
    }
    return config;
  }

  /** The issuer's connector issues; a CA's own failure (IssuerError) becomes the API's answer. */
  private async connectorIssue(
    issuer: IssuerRow,
    issuingCaRow: CaRow | null,
    request: IssueRequest,
  ): Promise<IssuedCertificateResult | PendingIssuance> {
    try {
      return await this.connector(issuer, 'issue', { issuingCaRow }).issue(request);
    } catch (error) {
      throw asCertlaneError(error);
    }
  }

  /** Whether the issuer's kind has a connector to test (the others answer `not_implemented`). */
  hasConnector(kind: string): boolean {
    return this.connectors.has(kind);
  }

  async test(issuer: IssuerRow): Promise<IssuerTestResult> {
    let result;
    try {
      result = await this.connector(issuer, 'be tested').testConnection();
    } catch (error) {
      throw asCertlaneError(error);
    }
    return { status: result.ok ? 'ok' : 'failed', message: result.message, latency_ms: result.latencyMs };
  }

  /**
   * The bus `issue` command: signs, then records the serial, its audit record and its event by
   * group commit before answering (a certificate is handed out only once it is recorded).
   */
  async issue(request: IssueCertificateRequest, context?: RequestContext): Promise<IssuedCertificateDto> {
    const signed = await this.sign(request, context);
    await this.issuedWriter.write(signed.record);
    return signed.certificate;
  }

  /**
   * Signs a certificate from a CSR and writes nothing: the caller records it with `recordIssued`
   * in the transaction that stores what the certificate is for (the inventory's version), so a
   * serial is recorded, and its revocation service learns of it, exactly when that commits (ADR
   * 0045). A signed certificate never recorded was never handed out.
   */
  async sign(request: IssueCertificateRequest, context?: RequestContext): Promise<SignedCertificate> {
    const issuerId = request.issuer_id ?? DEFAULT_ISSUER_ID;
    // The issuer and its issuing CA in one read, shared with concurrent issuances (each gets a
    // read started after it arrived); the CA's status is still checked after the CSR.
    const found = await this.issuerReads.get(issuerId);
    if (!found) throw issuerNotFound(issuerId);
    const { issuer } = found;
    const answer = await this.connectorIssue(issuer, found.ca, {
      csrPem: request.csr_pem,
      profile: {
        validityDays: request.validity_days,
        ...(request.not_before ? { notBefore: new Date(request.not_before) } : {}),
        ...(request.not_after ? { notAfter: new Date(request.not_after) } : {}),
        subjectAltNames: request.sans,
        ...(request.subject_common_name === undefined ? {} : { commonName: request.subject_common_name }),
        mustStaple: request.must_staple,
        ...(request.extended_key_usage ? { extendedKeyUsage: request.extended_key_usage } : {}),
      },
      idempotencyKey: request.idempotency_key ?? '',
    });
    if (isPendingIssuance(answer)) {
      throw new CertlaneError(
        ErrorCode.NotImplemented,
        `issuer ${issuer.id} answered pending: asynchronous issuance (polling) is not wired yet`,
      );
    }
    // Issuers without a CA tree of their own (remote CAs) name no ca_id.
    const issued = answer;
    const caId = answer.caId ?? '';
    const record: IssuedRecord = {
      row: {
        issuer_id: issuer.id,
        serial_hex: issued.serialNumber,
        ca_id: caId,
        fingerprint_sha256: issued.fingerprintSha256,
        subject: issued.subject,
        not_before: issued.notBefore,
        not_after: issued.notAfter,
        purpose: 'leaf',
      },
      audit: auditRecord(
        'cert_lifecycle',
        'certificate',
        AuditAction.CertificateIssued,
        issued.serialNumber,
        context,
        {
          issuer_id: issuer.id,
          ca_id: caId,
          subject: issued.subject,
          fingerprint_sha256: issued.fingerprintSha256,
          not_after: issued.notAfter.toISOString(),
        },
      ),
      event: {
        issuer_id: issuer.id,
        ca_id: caId,
        serial_hex: issued.serialNumber,
        not_before: issued.notBefore.toISOString(),
        not_after: issued.notAfter.toISOString(),
        fingerprint_sha256: issued.fingerprintSha256,
        issued_at: new Date().toISOString(),
      },
    };
    // Cross-certificates count only for the CA they were read with (the connector signs with it).
    const alternates =
      found.ca && caId === found.ca.id
        ? await this.alternateChainsPem(issued.chainPem, found.crossCertificates)
        : undefined;
    const certificate: IssuedCertificateDto = {
      issuer_id: issuer.id,
      ca_id: caId,
      certificate_pem: issued.certificatePem,
      chain_pem: issued.chainPem,
      full_pem: issued.certificatePem + issued.chainPem,
      ...(alternates ? { alternate_chains_pem: alternates } : {}),
      serial_hex: issued.serialNumber,
      fingerprint_sha256: issued.fingerprintSha256,
      not_before: issued.notBefore.toISOString(),
      not_after: issued.notAfter.toISOString(),
    };
    return { certificate, record, ...(issued.certificate ? { leaf: issued.certificate } : {}) };
  }

  /**
   * Records a signed certificate (serial, audit record, `issuance.v1.certificate.issued` through
   * the outbox) in the caller's unit of work (UnitOfWork), which publishes them after its commit.
   */
  recordIssued(manager: EntityManager, signed: SignedCertificate): Promise<void> {
    return this.writeIssued(manager, [signed.record]);
  }

  /** `recordIssued` for several signed certificates: one statement for serials, one for audit and events. */
  recordIssuedMany(manager: EntityManager, signed: SignedCertificate[]): Promise<void> {
    return this.writeIssued(
      manager,
      signed.map((s) => s.record),
    );
  }

  /**
   * The serials of several signed certificates, stored; their audit records and
   * `issuance.v1.certificate.issued` events returned for the caller to put in its own outbox
   * statement of the same unit of work (first, in the order given).
   */
  async recordIssuedSerials(manager: EntityManager, signed: SignedCertificate[]): Promise<OutboxItem[]> {
    const records = signed.map((s) => s.record);
    await this.cas.recordIssuedMany(
      manager,
      records.map((r) => r.row),
    );
    return issuedOutboxItems(records);
  }

  private async writeIssued(manager: EntityManager, records: IssuedRecord[]): Promise<void> {
    await this.cas.recordIssuedMany(
      manager,
      records.map((r) => r.row),
    );
    await this.outbox.addEach(manager, issuedOutboxItems(records));
  }

  // ---- for the revocation service ----

  async issuerCaInfo(issuerId: string, caId?: string): Promise<IssuerCaInfo> {
    const { issuer, ca } = await this.issuerCa(issuerId, 'serve CRLs or OCSP', caId);
    const certificate = parseCertificate(ca.certificate_pem as string);
    const signer = await this.signer(ca);
    const { rows } = await this.cas.list({ page: 1, per_page: 1000, offset: 0 }, issuer.id);
    return {
      issuer_id: issuer.id,
      kind: issuer.kind,
      capabilities: { crl: signer.signatureAlgorithm.hash !== null, ocsp: true },
      ca_id: ca.id,
      ca_certificate_pem: toPem('CERTIFICATE', certificate.der),
      chain_pem: await this.caChainPem(issuer, ca),
      signature_algorithm: signer.signatureAlgorithm.name,
      cas: rows.flatMap((row) =>
        row.status === 'pending' || !row.certificate_pem
          ? []
          : [
              {
                ca_id: row.id,
                certificate_pem: row.certificate_pem,
                status: row.status,
                issuing: row.id === issuer.issuing_ca_id,
              },
            ],
      ),
    };
  }

  /**
   * The chain of the CA: the issuing CA's through the issuer's connector (`getCaChain`), that of
   * another CA of the tree (retired, or not issuing) from the tree itself.
   */
  private async caChainPem(issuer: IssuerRow, ca: CaRow): Promise<string> {
    if (ca.id === issuer.issuing_ca_id && ca.status === 'active') {
      const connector = this.connector(issuer, 'serve CRLs or OCSP', { issuingCaRow: ca });
      return (await connector.getCaChain()).chainPem;
    }
    return [ca.certificate_pem as string, ...(await this.parentsPem(ca))].join('');
  }

  async signDigest(request: SignDigestRequest): Promise<SignDigestResponse> {
    const { ca } = await this.issuerCa(request.issuer_id, 'sign CRLs', request.ca_id);
    const pkcs8 = this.secrets.openKey(ca.id, ca.private_key_sealed);
    const signer = await this.keys.load({ provider: ca.key_provider, reference: pkcs8 });
    const hash = signer.signatureAlgorithm.hash;
    if (hash !== null && hash !== request.digest_algorithm) {
      throw CertlaneError.validation([
        {
          field: 'digest_algorithm',
          message: `CA ${ca.id} signs with ${signer.signatureAlgorithm.name}: send a ${hash} digest, not ${request.digest_algorithm}`,
        },
      ]);
    }
    const signature = signDigest(
      pkcs8,
      request.digest_algorithm,
      Buffer.from(request.digest_base64, 'base64'),
    );
    return {
      signature_base64: signature.toString('base64'),
      signature_algorithm: signer.signatureAlgorithm.name,
    };
  }

  /** A delegated OCSP responder certificate (RFC 6960 4.2.2.2) from the issuing CA or `ca_id`, retired ones too. */
  async issueOcspResponder(
    request: IssueOcspResponderRequest,
    context?: RequestContext,
  ): Promise<OcspResponderCertificate> {
    const { issuer, ca } = await this.issuerCa(request.issuer_id, 'serve OCSP', request.ca_id);
    let csr;
    try {
      csr = parseCsr(request.csr_pem);
    } catch (error) {
      throw asInputError(error, 'OCSP responder CSR refused');
    }
    const now = new Date();
    const authority = new CertificateAuthority({
      certificate: ca.certificate_pem as string,
      signer: await this.signer(ca),
    });
    const issued = await authority.issue(
      ocspResponderTemplate({
        subject: csr.subject.der,
        publicKey: csr.publicKey,
        notBefore: now,
        notAfter: new Date(now.getTime() + OCSP_RESPONDER_VALIDITY_DAYS * 86_400_000),
      }),
    );
    const certificate = parseCertificate(issued.der);
    const parents = await this.parentsPem(ca);
    await this.unitOfWork.run(async (manager) => {
      await this.cas.recordIssued(manager, {
        issuer_id: issuer.id,
        serial_hex: certificate.serialNumber,
        ca_id: ca.id,
        fingerprint_sha256: certificate.fingerprintSha256,
        subject: certificate.subject.text,
        not_before: certificate.notBefore,
        not_after: certificate.notAfter,
        purpose: 'ocsp_responder',
      });
      await this.outbox.audit(
        manager,
        auditRecord(
          'cert_lifecycle',
          'certificate',
          AuditAction.OcspResponderIssued,
          certificate.serialNumber,
          context,
          { issuer_id: issuer.id, ca_id: ca.id, not_after: certificate.notAfter.toISOString() },
          SYSTEM_ACTOR,
        ),
      );
    });
    const pem = exportPem(certificate, [ca.certificate_pem as string, ...parents]);
    return {
      certificate_pem: pem.cert_pem,
      chain_pem: pem.chain_pem,
      not_after: certificate.notAfter.toISOString(),
    };
  }
}
