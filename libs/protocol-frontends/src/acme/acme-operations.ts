import {
  acmeEarlyRenewalCriteria,
  AcmeBulkEarlyRenewalResult,
  AcmeOrderDetailDto,
  AcmeOrderDto,
  AcmeRenewalInfoDto,
  AcmeValidationAttemptDto,
  AuditAction,
  AuditRecord,
  BulkRenewAcmeCertificatesEarlyRequest,
  CertlaneError,
  ErrorCode,
  ListAcmeOrdersRequest,
  ListAcmeValidationAttemptsRequest,
  Page,
  RenewAcmeCertificateEarlyCommand,
  RequestContext,
  resolvePage,
} from '@certlane/contracts';
import { SqlExecutor } from '@certlane/platform';
import {
  AccountStore,
  AcmeOperationsStore,
  AcmeOrderOperatorRow,
  AcmeProfileStore,
  AcmeRenewalInfoRow,
  AcmeValidationAttemptRow,
  CertificateStore,
} from '@certlane/protocol-frontends-data-access';
import {
  bulkEarlyRenewalWindow,
  earlyRenewalWindow,
  effectiveOrderStatus,
  renewalInfoOf,
} from '@certlane/protocol-frontends-domain';
import { DEFAULT_ACME_PROFILE } from './acme-urls';

export interface AcmeOperationsDeps {
  executor: SqlExecutor;
  transaction<T>(work: (executor: SqlExecutor) => Promise<T>): Promise<T>;
  audit(executor: SqlExecutor, record: AuditRecord): Promise<void>;
  /** SERVICE_ACME_REVOCATION_EXPLANATION_URL: the explanationURL of revoked certificates. */
  revocationExplanationUrl?: string;
  /** The issuer and serial of an inventory certificate's latest version; null when it has none. */
  inventoryCertificate?(id: string): Promise<{ issuer_id: string; serial_hex: string } | null>;
  now?: () => Date;
}

const iso = (value: Date | string | null): string | null => (value ? new Date(value).toISOString() : null);

export function acmeOrderDto(row: AcmeOrderOperatorRow, now: Date): AcmeOrderDto {
  return {
    id: row.id,
    account_id: row.account_id,
    profile_id: row.profile_id,
    status: effectiveOrderStatus({ status: row.status, expires: row.expires_at }, now),
    identifiers: row.identifiers,
    expires_at: iso(row.expires_at)!,
    error: (row.error as Record<string, unknown> | null) ?? null,
    replaces: row.replaces,
    not_before: iso(row.not_before),
    not_after: iso(row.not_after),
    certificate_id: row.certificate_id,
    serial_hex: row.serial_hex,
    renewal_id: row.renewal_id,
    approval_id: row.approval_id,
    created_at: iso(row.created_at)!,
    updated_at: iso(row.updated_at)!,
  };
}

export function acmeValidationAttemptDto(row: AcmeValidationAttemptRow): AcmeValidationAttemptDto {
  return {
    id: row.id,
    challenge_id: row.challenge_id,
    authorization_id: row.authorization_id,
    account_id: row.account_id,
    type: row.type,
    identifier_type: row.identifier_type,
    identifier_value: row.identifier_value,
    result: row.result,
    error: (row.error as Record<string, unknown> | null) ?? null,
    remote_address: row.remote_address,
    attempted_at: iso(row.attempted_at)!,
  };
}

/** The renewalInfo answer of a stored certificate (RFC 9773 4.2), for renewal-info and the API. */
export function renewalInfoAnswer(row: AcmeRenewalInfoRow, revocationExplanationUrl?: string) {
  return renewalInfoOf(
    {
      notBefore: row.not_before,
      notAfter: row.not_after,
      revokedAt: row.revoked_at,
      replaced: row.replaced_by_id !== null,
      renewEarly:
        row.renew_early_start && row.renew_early_end
          ? { start: row.renew_early_start, end: row.renew_early_end }
          : null,
      explanationUrl: row.explanation_url,
    },
    revocationExplanationUrl,
  );
}

/**
 * The operators' view of ACME orders and validation attempts, and early renewal asked by an
 * operator (issue 19 points 5 and 10, ADR 0060 "Operations").
 */
export class AcmeOperations {
  constructor(private readonly deps: AcmeOperationsDeps) {}

  private now(): Date {
    return this.deps.now?.() ?? new Date();
  }

  async listOrders(request: ListAcmeOrdersRequest): Promise<Page<AcmeOrderDto>> {
    const page = resolvePage(request);
    const { rows, total } = await new AcmeOperationsStore(this.deps.executor).listOrders({
      offset: page.offset,
      limit: page.per_page,
      ...(request.account_id ? { accountId: request.account_id } : {}),
      ...(request.status ? { status: request.status } : {}),
      ...(request.identifier ? { identifier: request.identifier.toLowerCase() } : {}),
    });
    const now = this.now();
    return {
      data: rows.map((row) => acmeOrderDto(row, now)),
      total,
      page: page.page,
      per_page: page.per_page,
    };
  }

  async getOrder(id: string): Promise<AcmeOrderDetailDto> {
    const store = new AcmeOperationsStore(this.deps.executor);
    const row = await store.order(id);
    if (!row) throw new CertlaneError(ErrorCode.AcmeOrderNotFound, `no ACME order ${id}`);
    const authorizations = await store.authorizationsOf(id);
    return {
      ...acmeOrderDto(row, this.now()),
      authorizations: authorizations.map((a) => ({
        id: a.id,
        identifier: { type: a.identifier_type, value: a.identifier_value },
        wildcard: a.wildcard,
        status: a.status,
        expires_at: iso(a.expires_at)!,
        challenges: a.challenges.map((c) => ({
          id: c.id,
          type: c.type,
          status: c.status,
          validated_at: iso(c.validated_at),
          error: (c.error as Record<string, unknown> | null) ?? null,
        })),
      })),
    };
  }

  async listValidationAttempts(
    request: ListAcmeValidationAttemptsRequest,
  ): Promise<Page<AcmeValidationAttemptDto>> {
    const page = resolvePage(request);
    const { rows, total } = await new AcmeOperationsStore(this.deps.executor).listAttempts({
      offset: page.offset,
      limit: page.per_page,
      ...(request.account_id ? { accountId: request.account_id } : {}),
      ...(request.order_id ? { orderId: request.order_id } : {}),
      ...(request.authorization_id ? { authorizationId: request.authorization_id } : {}),
      ...(request.challenge_id ? { challengeId: request.challenge_id } : {}),
      ...(request.identifier ? { identifier: request.identifier.toLowerCase() } : {}),
      ...(request.result ? { result: request.result } : {}),
    });
    return { data: rows.map(acmeValidationAttemptDto), total, page: page.page, per_page: page.per_page };
  }

  /**
   * RFC 9773 4.2 asked by an operator: the certificate's suggested window becomes now .. now +
   * spread (an hour by default), with the explanation given; audited in the same transaction.
   * A revoked certificate already has a past window (409); an expired one cannot be renewed early.
   */
  async renewEarly(
    request: RenewAcmeCertificateEarlyCommand,
    context?: RequestContext,
  ): Promise<AcmeRenewalInfoDto> {
    const actor = context?.actor_id ?? 'unknown';
    const id = await this.acmeCertificateId(request.id);
    return this.deps.transaction(async (executor) => {
      const store = new AcmeOperationsStore(executor);
      const certificate = await store.certificate(id);
      if (!certificate)
        throw new CertlaneError(
          ErrorCode.AcmeCertificateNotFound,
          `no ACME certificate ${request.id}: neither the certificate_id of an ACME order (/api/v1/admin/acme/orders) nor an inventory certificate whose latest version an ACME order issued`,
        );
      if (certificate.revoked_at)
        throw new CertlaneError(
          ErrorCode.AcmeCertificateRevoked,
          `the ACME certificate ${id} is revoked: renewal-info already tells its clients to renew`,
        );
      const window = earlyRenewalWindow(
        this.now(),
        certificate.not_after,
        (request.spread_minutes ?? 60) * 60_000,
      );
      if (!window)
        throw new CertlaneError(ErrorCode.AcmeCertificateExpired, `the ACME certificate ${id} has expired`);
      const explanation = request.explanation_url ?? null;
      const updated = await store.renewEarly(id, window, explanation, actor);
      // Revoked meanwhile (the UPDATE keeps revoked rows as they are).
      if (!updated)
        throw new CertlaneError(ErrorCode.AcmeCertificateRevoked, `the ACME certificate ${id} is revoked`);
      await this.deps.audit(executor, {
        action: AuditAction.AcmeCertificateRenewEarly,
        event_category: 'cert_lifecycle',
        actor_id: actor,
        resource_type: 'acme_certificate',
        resource_id: id,
        outcome: 'success',
        ...(context?.request_id ? { request_id: context.request_id } : {}),
        details: {
          serial_hex: certificate.serial_hex,
          renewal_id: certificate.renewal_id,
          window: { start: window.start.toISOString(), end: window.end.toISOString() },
          explanation_url: explanation,
        },
      });
      const info = renewalInfoAnswer(updated, this.deps.revocationExplanationUrl);
      return {
        certificate_id: certificate.id,
        order_id: certificate.order_id,
        account_id: certificate.account_id,
        serial_hex: certificate.serial_hex,
        renewal_id: certificate.renewal_id,
        suggested_window: info.suggestedWindow,
        explanation_url: info.explanationURL ?? null,
        renew_early_by: actor,
      };
    });
  }

  /**
   * The ACME certificate an operator names: its own id, or the inventory id of the certificate
   * whose latest version an ACME order issued (what the inventory pages show). The id as given
   * when neither finds one (the caller answers 404).
   */
  private async acmeCertificateId(id: string): Promise<string> {
    const store = new AcmeOperationsStore(this.deps.executor);
    if ((await store.certificate(id)) || !this.deps.inventoryCertificate) return id;
    const latest = await this.deps.inventoryCertificate(id);
    if (!latest) return id;
    const issued = await new CertificateStore(this.deps.executor).bySerial(latest.serial_hex);
    return issued.find((certificate) => certificate.issuer_id === latest.issuer_id)?.id ?? id;
  }

  /**
   * RFC 9773 4.2 for every live certificate of an ACME account or of an ACME profile at once
   * (after an issuer's key compromise, a profile change): the window of renewEarly, closed at each
   * certificate's own end, set by one statement; revoked, expired and replaced certificates are
   * left as they are. One audit record for the call, with the criteria and the count, in the same
   * transaction. An unknown account or profile is 404; one with nothing live moves nothing (200).
   */
  async renewEarlyAll(
    request: BulkRenewAcmeCertificatesEarlyRequest,
    context?: RequestContext,
  ): Promise<AcmeBulkEarlyRenewalResult> {
    const criteria = acmeEarlyRenewalCriteria(request);
    const actor = context?.actor_id ?? 'unknown';
    const spreadMinutes = request.spread_minutes ?? 60;
    const explanation = request.explanation_url ?? null;
    return this.deps.transaction(async (executor) => {
      if ('account_id' in criteria) {
        if (!(await new AccountStore(executor).byId(criteria.account_id)))
          throw new CertlaneError(ErrorCode.AcmeAccountNotFound, `no ACME account ${criteria.account_id}`);
      } else if (
        criteria.acme_profile_id !== DEFAULT_ACME_PROFILE &&
        !(await new AcmeProfileStore(executor).get(criteria.acme_profile_id))
      ) {
        // A deleted profile's directory is gone: its clients could not renew there anyway.
        throw new CertlaneError(ErrorCode.AcmeProfileNotFound, `no ACME profile ${criteria.acme_profile_id}`);
      }
      const window = bulkEarlyRenewalWindow(this.now(), spreadMinutes * 60_000);
      const moved = await new AcmeOperationsStore(executor).renewEarlyAll(
        'account_id' in criteria
          ? { accountId: criteria.account_id }
          : { profileId: criteria.acme_profile_id },
        window,
        explanation,
        actor,
      );
      const suggestedWindow = { start: window.start.toISOString(), end: window.end.toISOString() };
      await this.deps.audit(executor, {
        action: AuditAction.AcmeCertificatesBulkRenewEarly,
        event_category: 'cert_lifecycle',
        actor_id: actor,
        resource_type: 'acme_certificate',
        resource_id: 'bulk',
        outcome: 'success',
        ...(context?.request_id ? { request_id: context.request_id } : {}),
        details: {
          criteria,
          total_moved: moved,
          window: suggestedWindow,
          spread_minutes: spreadMinutes,
          explanation_url: explanation,
        },
      });
      return {
        account_id: 'account_id' in criteria ? criteria.account_id : null,
        acme_profile_id: 'acme_profile_id' in criteria ? criteria.acme_profile_id : null,
        total_moved: moved,
        suggested_window: suggestedWindow,
        explanation_url: explanation,
        renew_early_by: actor,
      };
    });
  }
}
