import { Controller, Get, Header, Inject, Res } from '@nestjs/common';
import type { Response } from 'express';
import { PublicRoute } from '../http/public-route';
import { METRICS, READINESS } from './tokens';
import { Metrics } from '../observability/metrics';
import { ReadinessRegistry } from '../observability/readiness';

/** /health (the process is alive), /ready (its database and bus answer), /metrics (Prometheus). */
@PublicRoute()
@Controller()
export class HealthController {
  constructor(
    @Inject(READINESS) private readonly readiness: ReadinessRegistry,
    @Inject(METRICS) private readonly metrics: Metrics,
  ) {}

  @Get('health')
  @Header('Cache-Control', 'no-store')
  health(): { status: string } {
    return { status: 'ok' };
  }

  @Get('ready')
  @Header('Cache-Control', 'no-store')
  async ready(
    @Res({ passthrough: true }) response: Response,
  ): Promise<{ status: string; checks: Record<string, string> }> {
    const report = await this.readiness.evaluate();
    response.status(report.ready ? 200 : 503);
    return { status: report.ready ? 'ready' : 'not_ready', checks: report.checks };
  }

  @Get('metrics')
  async prometheus(@Res() response: Response): Promise<void> {
    response.setHeader('Content-Type', this.metrics.registry.contentType);
    response.setHeader('Cache-Control', 'no-store');
    response.send(await this.metrics.registry.metrics());
  }
}
