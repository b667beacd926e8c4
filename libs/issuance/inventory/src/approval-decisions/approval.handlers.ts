import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { MESSAGE_BUS, MessageBus } from '@certlane/platform';
import { ApprovalService } from './approval.service';

/** Serves the approval subjects of libs/contracts on the bus (ADR 0025). */
@Injectable()
export class ApprovalHandlers implements OnApplicationBootstrap {
  constructor(
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    private readonly approvals: ApprovalService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await Promise.all([
      this.bus.handle('issuance.v1.list-approvals', (request) => this.approvals.list(request)),
      this.bus.handle('issuance.v1.get-approval', (request) => this.approvals.get(request.id)),
      this.bus.handle('issuance.v1.approve-approval', (request, context) =>
        this.approvals.approve(request, context),
      ),
      this.bus.handle('issuance.v1.reject-approval', (request, context) =>
        this.approvals.reject(request, context),
      ),
      this.bus.handle('issuance.v1.request-enrollment-approval', (request, context) =>
        this.approvals.requestEnrollment(request, context),
      ),
      this.bus.handle('issuance.v1.get-enrollment-approval', (request) =>
        this.approvals.enrollmentOutcome(request.id),
      ),
    ]);
  }
}
