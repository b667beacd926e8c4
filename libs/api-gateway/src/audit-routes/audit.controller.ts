import { Controller, Get, Inject, Query, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { AuditExportQuery, planAuditExport } from '@certlane/contracts';
import { CertlaneLogger, LOGGER, MESSAGE_BUS, MessageBus, requestIdOf } from '@certlane/platform';
import { busContext } from '../auth/actor';
import { RequirePermission } from '../auth/route-access';
import { streamAuditExport } from './audit-export';
import { Documented } from '../operation-facts/operation-facts';

/**
 * The audit export (spec 4.10, 6.1), streamed from the auth service; the list and the chain check
 * are declared (audit.routes.ts).
 */
@Controller('api/v1/audit')
export class AuditController {
  constructor(
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(LOGGER) private readonly logger: CertlaneLogger,
  ) {}

  /** NDJSON, one AuditEventDto per line, in (occurred_at, seq) order. */
  @Get('export')
  @RequirePermission('audit.export')
  @Documented({
    operationId: 'exportAudit',
    summary: 'Stream audit events as NDJSON, one AuditEventDto per line',
    status: 200,
    errors: [403],
    response: null,
    produces: 'application/x-ndjson',
  })
  async export(
    @Query() query: AuditExportQuery,
    @Req() request: Request,
    @Res() response: Response,
  ): Promise<void> {
    // Refusals (400) happen here, before any byte of the body.
    const plan = planAuditExport(query);
    const context = busContext(request);
    try {
      await streamAuditExport(
        plan,
        (page) => this.bus.request('auth.v1.export-audit-page', page, { context }),
        response,
      );
    } catch (error) {
      // Before the status line went out the error gets the usual error body (exception filter);
      // after it, all that is left is to cut the stream so the client sees it incomplete.
      if (!response.headersSent) throw error;
      this.logger.warn({ err: error, request_id: requestIdOf(request) }, 'audit export cut short');
      response.destroy();
    }
  }
}
