import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { MESSAGE_BUS, MessageBus } from '@certlane/platform';
import { AgentWorkService } from './agent-work.service';

/** Serves the agent work subjects of libs/contracts on the bus (ADR 0027). */
@Injectable()
export class AgentWorkHandlers implements OnApplicationBootstrap {
  constructor(
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    private readonly work: AgentWorkService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await Promise.all([
      this.bus.handle('issuance.v1.get-agent-work', (request) => this.work.work(request.agent_id)),
      this.bus.handle('issuance.v1.submit-agent-csr', (request, context) =>
        this.work.submitCsr(request, context),
      ),
      this.bus.handle('issuance.v1.get-agent-certificate', (request) => this.work.certificate(request)),
      this.bus.handle('issuance.v1.release-agent-certificate-key', (request, context) =>
        this.work.releaseKey(request, context),
      ),
      this.bus.handle('issuance.v1.report-agent-job-status', (request, context) =>
        this.work.report(request, context),
      ),
    ]);
  }
}
