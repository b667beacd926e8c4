import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  AgentDiscoveryAccepted,
  AuditAction,
  auditOrigin,
  CertlaneError,
  ErrorCode,
  PushAgentDiscoveryRequest,
  RequestContext,
} from '@certlane/contracts';
import { MESSAGE_BUS, MessageBus, outboxToken, ServiceOutbox } from '@certlane/platform';
import { DataSource } from 'typeorm';
import { DiscoveryRecorder, FoundCertificate, foundFromPem } from './discovery-recorder';

/**
 * The machine-to-machine discovery endpoint (spec 4.7 note; ADR 0063): an agent pushes the
 * certificates its filesystem scan found; each is parsed and re-encoded from its DER (so only a
 * certificate is stored), recorded with where it was seen (`agent:<agent id>:<path>`), and the
 * push is audited once, with the agent as the actor, in the same transaction.
 */
@Injectable()
export class AgentDiscoveryService implements OnApplicationBootstrap {
  constructor(
    @InjectDataSource('health-monitor') private readonly dataSource: DataSource,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(outboxToken('health-monitor')) private readonly outbox: ServiceOutbox,
    private readonly recorder: DiscoveryRecorder,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.bus.handle('health-monitor.v1.push-agent-discovery', (request, context) =>
      this.push(request, context),
    );
  }

  async push(request: PushAgentDiscoveryRequest, context?: RequestContext): Promise<AgentDiscoveryAccepted> {
    // Parse everything before storing anything: a push is accepted whole or refused whole.
    const parsed: { found: FoundCertificate; location: string }[] = request.findings.map((finding, index) => {
      try {
        return {
          found: foundFromPem(finding.certificate_pem),
          location: `agent:${request.agent_id}:${finding.path}`,
        };
      } catch {
        throw new CertlaneError(
          ErrorCode.ValidationFailed,
          `findings[${index}].certificate_pem is not a parsable X.509 certificate`,
        );
      }
    });
    if (request.walk_complete && !request.walk_id)
      throw new CertlaneError(ErrorCode.ValidationFailed, 'walk_complete needs the walk_id of the walk');
    const walkId = request.walk_id ?? null;
    const certificates = new Set(parsed.map((item) => item.found.fingerprint));
    const result = await this.dataSource.transaction(async (manager) => {
      let fresh = 0;
      for (const { found, location } of parsed) {
        if (await this.recorder.record(manager, found, { location, source: 'agent', scanId: walkId }))
          fresh++;
      }
      // The walk read everything it was configured to: what it did not find again is gone.
      const gone =
        request.walk_complete && walkId
          ? await this.recorder.markGone(manager, { kind: 'agent', owner: request.agent_id }, walkId)
          : 0;
      const accepted: AgentDiscoveryAccepted = {
        received: parsed.length,
        certificates: certificates.size,
        new_certificates: fresh,
        gone_certificates: gone,
      };
      await this.outbox.audit(manager, {
        action: AuditAction.AgentDiscoveryPushed,
        event_category: 'cert_lifecycle',
        ...auditOrigin(context, `agent:${request.agent_id}`),
        resource_type: 'agent',
        resource_id: request.agent_id,
        outcome: 'success',
        details: { ...accepted },
      });
      return accepted;
    });
    this.outbox.committed();
    return result;
  }
}
