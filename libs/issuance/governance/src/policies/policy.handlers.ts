import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { MESSAGE_BUS, MessageBus } from '@certlane/platform';
import { PolicyService } from './policy.service';

/** Serves the policy-rule subjects of libs/contracts on the bus. */
@Injectable()
export class PolicyHandlers implements OnApplicationBootstrap {
  constructor(
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    private readonly policies: PolicyService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await Promise.all([
      this.bus.handle('issuance.v1.list-policies', (request) => this.policies.list(request)),
      this.bus.handle('issuance.v1.get-policy', (request) => this.policies.get(request.id)),
      this.bus.handle('issuance.v1.create-policy', (request, context) =>
        this.policies.create(request, context),
      ),
      this.bus.handle('issuance.v1.update-policy', (request, context) =>
        this.policies.update(request, context),
      ),
      this.bus.handle('issuance.v1.delete-policy', (request, context) =>
        this.policies.delete(request.id, context),
      ),
      this.bus.handle('issuance.v1.list-policy-violations', (request) => this.policies.violations(request)),
      this.bus.handle('issuance.v1.get-policy-violation-summary', () => this.policies.violationSummary()),
      this.bus.handle('issuance.v1.evaluate-policies', (request, context) =>
        this.policies.evaluate(request, context),
      ),
    ]);
  }
}
