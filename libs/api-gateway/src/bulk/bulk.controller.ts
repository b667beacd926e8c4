import { Body, Controller, HttpCode, Inject, Post, Req } from '@nestjs/common';
import type { Request } from 'express';
import {
  BulkReassignRequest,
  BulkReassignResult,
  BulkRenewRequest,
  BulkRenewResult,
  BulkRevokeRequest,
  BulkRevokeResult,
} from '@certlane/contracts';
import { MESSAGE_BUS, MessageBus } from '@certlane/platform';
import { AdminOnly } from '../auth/admin-only';
import { busContext } from '../auth/actor';
import { Idempotent } from '../idempotency/idempotency.interceptor';
import { RequirePermission } from '../auth/route-access';

/**
 * How long the gateway waits for a bulk call: it walks up to 100,000 certificates in batches
 * (bench/bulk), far longer than an ordinary request (SERVICE_BUS_REQUEST_TIMEOUT).
 */
export const BULK_REQUEST_TIMEOUT_MS = 5 * 60_000;

/**
 * POST /api/v1/certificates/bulk-revoke, /bulk-renew and /bulk-reassign (spec 4.2, 4.3; ADR
 * 0024). Registered ahead of the certificate `:id` routes (GATEWAY_CONTROLLERS order), so a
 * literal path is never read as a certificate id.
 */
@Controller('api/v1/certificates')
export class BulkCertificatesController {
  constructor(@Inject(MESSAGE_BUS) private readonly bus: MessageBus) {}

  @Post('bulk-revoke')
  @Idempotent({ waitMs: BULK_REQUEST_TIMEOUT_MS })
  @HttpCode(200)
  @RequirePermission('certificate.revoke')
  revoke(@Body() body: BulkRevokeRequest, @Req() request: Request): Promise<BulkRevokeResult> {
    return this.bus.request('issuance.v1.bulk-revoke-certificates', body, {
      context: busContext(request),
      timeoutMs: BULK_REQUEST_TIMEOUT_MS,
    });
  }

  @Post('bulk-renew')
  @Idempotent({ waitMs: BULK_REQUEST_TIMEOUT_MS })
  @HttpCode(200)
  @RequirePermission('certificate.renew')
  renew(@Body() body: BulkRenewRequest, @Req() request: Request): Promise<BulkRenewResult> {
    return this.bus.request('issuance.v1.bulk-renew-certificates', body, {
      context: busContext(request),
      timeoutMs: BULK_REQUEST_TIMEOUT_MS,
    });
  }

  @Post('bulk-reassign')
  @Idempotent({ waitMs: BULK_REQUEST_TIMEOUT_MS })
  @HttpCode(200)
  @RequirePermission('certificate.edit')
  reassign(@Body() body: BulkReassignRequest, @Req() request: Request): Promise<BulkReassignResult> {
    return this.bus.request('issuance.v1.bulk-reassign-certificates', body, {
      context: busContext(request),
      timeoutMs: BULK_REQUEST_TIMEOUT_MS,
    });
  }
}

/** POST /api/v1/est/certificates/bulk-revoke: admin only; the service forces source EST (spec 4.3). */
@Controller('api/v1/est/certificates')
export class EstBulkRevokeController {
  constructor(@Inject(MESSAGE_BUS) private readonly bus: MessageBus) {}

  @Post('bulk-revoke')
  @Idempotent({ waitMs: BULK_REQUEST_TIMEOUT_MS })
  @HttpCode(200)
  @AdminOnly()
  revoke(@Body() body: BulkRevokeRequest, @Req() request: Request): Promise<BulkRevokeResult> {
    return this.bus.request('issuance.v1.est-bulk-revoke-certificates', body, {
      context: busContext(request),
      timeoutMs: BULK_REQUEST_TIMEOUT_MS,
    });
  }
}
