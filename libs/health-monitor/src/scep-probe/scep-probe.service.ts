import { Inject, Injectable } from '@nestjs/common';
import {
  AuditAction,
  auditOrigin,
  ListScepProbesRequest,
  RequestContext,
  SCEP_PROBE_LIMIT_DEFAULT,
  ScepProbeList,
  ScepProbeRequest,
  ScepProbeResultDto,
} from '@certlane/contracts';
import { outboxToken, ServiceOutbox } from '@certlane/platform';
import { MONITOR_CLOCK, MonitorClock } from '../health-checks/monitor-clock';
import { ScepProber } from './scep-prober';
import { scepProbeDto, ScepProbeRepository } from './scep-probe.repository';

/** POST /network-scan/scep-probe and the recent-probes list (spec 2.17, 4.9). */
@Injectable()
export class ScepProbeService {
  constructor(
    private readonly prober: ScepProber,
    private readonly repository: ScepProbeRepository,
    @Inject(outboxToken('health-monitor')) private readonly outbox: ServiceOutbox,
    @Inject(MONITOR_CLOCK) private readonly clock: MonitorClock,
  ) {}

  async run(request: ScepProbeRequest, context?: RequestContext): Promise<ScepProbeResultDto> {
    const probedAt = this.clock.now();
    const findings = await this.prober.probe(request.url);
    const origin = auditOrigin(context);
    const dto = await this.repository.transaction(async (manager) => {
      const row = await this.repository.insert(manager, findings, probedAt, origin.actor_id);
      const dto = scepProbeDto(row, this.clock.now());
      await this.outbox.audit(manager, {
        action: AuditAction.ScepProbeRun,
        event_category: 'config',
        ...origin,
        resource_type: 'scep_probe',
        resource_id: dto.id,
        outcome: 'success',
        details: { target_url: dto.target_url, reachable: dto.reachable, error: dto.error },
      });
      return dto;
    });
    this.outbox.committed();
    return dto;
  }

  async recent(request: ListScepProbesRequest): Promise<ScepProbeList> {
    const limit = request.limit ?? SCEP_PROBE_LIMIT_DEFAULT;
    const now = this.clock.now();
    return { probes: (await this.repository.recent(limit)).map((row) => scepProbeDto(row, now)), limit };
  }
}
