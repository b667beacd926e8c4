import { IsIn, IsInt, IsOptional, IsString, Length, Matches, Max, Min } from 'class-validator';
import { CertlaneError } from '../errors/certlane-error';
import { PageQuery } from '../pagination/page';
import { ACME_PROFILE_ID } from './acme-admin.dto';

/**
 * The operators' view of ACME orders, validation attempts and early renewal (issue 19 points 5
 * and 10, ADR 0060 "Operations").
 */

/** An ACME order's status (RFC 8555 7.1.6). */
export const ACME_ORDER_STATUSES = ['pending', 'ready', 'processing', 'valid', 'invalid'] as const;
export type AcmeOrderStatus = (typeof ACME_ORDER_STATUSES)[number];

/** How a validation attempt ended: `retry` (could not connect or resolve; tried again later). */
export const ACME_VALIDATION_RESULTS = ['valid', 'invalid', 'retry'] as const;
export type AcmeValidationResult = (typeof ACME_VALIDATION_RESULTS)[number];

const ACME_ID = /^[A-Za-z0-9_-]{8,64}$/;
/** A dns or ip identifier as an order names it (a wildcard with its `*.`). */
const IDENTIFIER = /^[A-Za-z0-9*._:-]{1,253}$/;

export interface AcmeIdentifierDto {
  type: 'dns' | 'ip';
  value: string;
}

/** An ACME order as operators see it. */
export interface AcmeOrderDto {
  id: string;
  account_id: string;
  profile_id: string;
  /** As RFC 8555 reads it now: a pending or ready order past `expires_at` is invalid. */
  status: AcmeOrderStatus;
  identifiers: AcmeIdentifierDto[];
  expires_at: string;
  /** The problem document of an invalid order. */
  error: Record<string, unknown> | null;
  /** RFC 9773 5: the renewal id of the certificate this order replaces. */
  replaces: string | null;
  /** RFC 8555 7.4: the validity the order asked for, where its profile allows that (ADR 0069). */
  not_before: string | null;
  not_after: string | null;
  /** The ACME certificate the order produced (the id of renew-early), its serial and RFC 9773 id. */
  certificate_id: string | null;
  serial_hex: string | null;
  renewal_id: string | null;
  /** The enrollment approval (`/api/v1/approvals/{id}`) the order waits or waited for (ADR 0068). */
  approval_id: string | null;
  created_at: string;
  updated_at: string;
}

export interface AcmeChallengeSummaryDto {
  id: string;
  type: string;
  status: string;
  validated_at: string | null;
  error: Record<string, unknown> | null;
}

export interface AcmeAuthorizationSummaryDto {
  id: string;
  identifier: AcmeIdentifierDto;
  wildcard: boolean;
  status: string;
  expires_at: string;
  challenges: AcmeChallengeSummaryDto[];
}

/** GET /api/v1/admin/acme/orders/{id}: the order with its authorizations and challenges. */
export interface AcmeOrderDetailDto extends AcmeOrderDto {
  authorizations: AcmeAuthorizationSummaryDto[];
}

/** GET /api/v1/admin/acme/orders. */
export class ListAcmeOrdersRequest extends PageQuery {
  @IsOptional()
  @IsString({ message: 'account_id must be an ACME account id' })
  @Matches(ACME_ID, { message: 'account_id must be an ACME account id' })
  account_id?: string;

  @IsOptional()
  @IsIn(ACME_ORDER_STATUSES as unknown as string[], {
    message: `status must be one of ${ACME_ORDER_STATUSES.join(', ')}`,
  })
  status?: AcmeOrderStatus;

  /** Orders naming this identifier (exact value: `www.example.com`, `*.example.com`, `192.0.2.1`). */
  @IsOptional()
  @IsString({ message: 'identifier must be a domain name or IP address' })
  @Matches(IDENTIFIER, { message: 'identifier must be a domain name or IP address' })
  identifier?: string;
}

export class AcmeOrderIdRequest {
  @IsString({ message: 'id must be an ACME order id' })
  @Matches(ACME_ID, { message: 'id must be an ACME order id' })
  id!: string;
}

/** One attempt to validate a challenge (issue 19 points 4 and 10). */
export interface AcmeValidationAttemptDto {
  id: string;
  challenge_id: string;
  authorization_id: string;
  account_id: string;
  /** http-01, dns-01, tls-alpn-01... */
  type: string;
  identifier_type: 'dns' | 'ip';
  /** The authorization's identifier (a wildcard's base name). */
  identifier_value: string;
  result: AcmeValidationResult;
  /** The problem document of a failed or retried attempt (RFC 8555 6.7). */
  error: Record<string, unknown> | null;
  /** The address the validator connected to (http-01, tls-alpn-01; none for dns-01), when it got that far. */
  remote_address: string | null;
  attempted_at: string;
}

/** GET /api/v1/admin/acme/validation-attempts. */
export class ListAcmeValidationAttemptsRequest extends PageQuery {
  @IsOptional()
  @IsString({ message: 'account_id must be an ACME account id' })
  @Matches(ACME_ID, { message: 'account_id must be an ACME account id' })
  account_id?: string;

  @IsOptional()
  @IsString({ message: 'order_id must be an ACME order id' })
  @Matches(ACME_ID, { message: 'order_id must be an ACME order id' })
  order_id?: string;

  @IsOptional()
  @IsString({ message: 'authorization_id must be an ACME authorization id' })
  @Matches(ACME_ID, { message: 'authorization_id must be an ACME authorization id' })
  authorization_id?: string;

  @IsOptional()
  @IsString({ message: 'challenge_id must be an ACME challenge id' })
  @Matches(ACME_ID, { message: 'challenge_id must be an ACME challenge id' })
  challenge_id?: string;

  @IsOptional()
  @IsString({ message: 'identifier must be a domain name or IP address' })
  @Matches(IDENTIFIER, { message: 'identifier must be a domain name or IP address' })
  identifier?: string;

  @IsOptional()
  @IsIn(ACME_VALIDATION_RESULTS as unknown as string[], {
    message: `result must be one of ${ACME_VALIDATION_RESULTS.join(', ')}`,
  })
  result?: AcmeValidationResult;
}

export const ACME_EARLY_RENEWAL_LIMITS = { spreadMinutesMax: 7 * 24 * 60 } as const;

/** POST /api/v1/admin/acme/certificates/{id}/renew-early (RFC 9773 4.2). */
export class RenewAcmeCertificateEarlyRequest {
  /** An https page telling a human why (RFC 9773 4.2 `explanationURL`). */
  @IsOptional()
  @IsString({ message: 'explanation_url must be an https URL' })
  @Length(9, 2048, { message: 'explanation_url must be an https URL of at most 2048 characters' })
  @Matches(/^https:\/\/[^\s/?#]+[^\s]*$/, { message: 'explanation_url must be an https URL' })
  explanation_url?: string;

  /** Clients are spread over this many minutes from now (default 60). */
  @IsOptional()
  @IsInt({ message: 'spread_minutes must be an integer' })
  @Min(1, { message: `spread_minutes must be between 1 and ${ACME_EARLY_RENEWAL_LIMITS.spreadMinutesMax}` })
  @Max(ACME_EARLY_RENEWAL_LIMITS.spreadMinutesMax, {
    message: `spread_minutes must be between 1 and ${ACME_EARLY_RENEWAL_LIMITS.spreadMinutesMax}`,
  })
  spread_minutes?: number;
}

/** The bus request: the certificate from the path, the rest from the body. */
export class RenewAcmeCertificateEarlyCommand extends RenewAcmeCertificateEarlyRequest {
  /** The certificate_id of an ACME order, or the inventory id of a certificate an ACME order issued. */
  @IsString({ message: 'id must be an ACME or inventory certificate id' })
  @Matches(/^[A-Za-z0-9._-]{1,128}$/, { message: 'id must be an ACME or inventory certificate id' })
  id!: string;
}

/** What renewal-info answers for the certificate now (RFC 9773 4.2). */
export interface AcmeRenewalInfoDto {
  certificate_id: string;
  order_id: string;
  account_id: string;
  serial_hex: string;
  /** The RFC 9773 certificate identifier: GET /acme/renewal-info/{renewal_id}. */
  renewal_id: string;
  suggested_window: { start: string; end: string };
  explanation_url: string | null;
  /** Who asked for early renewal, if anyone. */
  renew_early_by: string | null;
}

/**
 * POST /api/v1/admin/acme/certificates/bulk-renew-early (RFC 9773 4.2): every live certificate
 * of one ACME account or of one ACME profile at once (after an issuer's key compromise, a profile
 * change). Exactly one of `account_id` and `acme_profile_id` (acmeEarlyRenewalCriteria).
 */
export class BulkRenewAcmeCertificatesEarlyRequest extends RenewAcmeCertificateEarlyRequest {
  /** Every live certificate this ACME account ordered. */
  @IsOptional()
  @IsString({ message: 'account_id must be an ACME account id' })
  @Matches(ACME_ID, { message: 'account_id must be an ACME account id' })
  account_id?: string;

  /** Every live certificate ordered under this ACME profile (`default` too). */
  @IsOptional()
  @IsString({ message: 'acme_profile_id must be an ACME profile id' })
  @Matches(ACME_PROFILE_ID, { message: 'acme_profile_id must be an ACME profile id' })
  acme_profile_id?: string;
}

/** Which certificates a bulk early renewal moves: those of one account, or of one profile. */
export type AcmeEarlyRenewalCriteria = { account_id: string } | { acme_profile_id: string };

/**
 * The criteria of a bulk early renewal, or 400 validation_failed when the request names neither
 * or both: checked by the gateway before sending, and by protocol-frontends for any bus caller.
 */
export function acmeEarlyRenewalCriteria(request: {
  account_id?: string;
  acme_profile_id?: string;
}): AcmeEarlyRenewalCriteria {
  const { account_id, acme_profile_id } = request;
  if (account_id !== undefined && acme_profile_id !== undefined)
    throw CertlaneError.validation([
      { field: 'acme_profile_id', message: 'name account_id or acme_profile_id, not both' },
    ]);
  if (account_id !== undefined) return { account_id };
  if (acme_profile_id !== undefined) return { acme_profile_id };
  throw CertlaneError.validation([
    { field: 'account_id', message: 'name the certificates: account_id or acme_profile_id' },
  ]);
}

/** What a bulk early renewal did (RFC 9773 4.2). */
export interface AcmeBulkEarlyRenewalResult {
  /** The criteria as asked: one of the two is set. */
  account_id: string | null;
  acme_profile_id: string | null;
  /**
   * How many certificates' windows moved: every one of the account or profile that is neither
   * revoked, expired nor already replaced by a renewal.
   */
  total_moved: number;
  /**
   * The window renewal-info now answers for them: now .. now + spread, closed at a certificate's
   * own end when it comes sooner (and the ordinary window where that closes first: never later).
   */
  suggested_window: { start: string; end: string };
  explanation_url: string | null;
  /** Who asked. */
  renew_early_by: string;
}
