import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { MESSAGE_BUS, MessageBus } from '@certlane/platform';
import { RenewalPolicyService } from './renewal-policy.service';

/** Serves the renewal-policy subjects of libs/contracts on the bus. */
@Injectable()
export class RenewalPolicyHandlers implements OnApplicationBootstrap {
  constructor(
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    private readonly policies: RenewalPolicyService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await Promise.all([
      this.bus.handle('issuance.v1.list-renewal-policies', (request) => this.policies.list(request)),
      this.bus.handle('issuance.v1.get-renewal-policy', (request) => this.policies.get(request.id)),
      this.bus.handle('issuance.v1.create-renewal-policy', (request, context) =>
        this.policies.create(request, context),
      ),
      this.bus.handle('issuance.v1.update-renewal-policy', (request, context) =>
        this.policies.update(request, context),
      ),
      this.bus.handle('issuance.v1.delete-renewal-policy', (request, context) =>
        this.policies.delete(request.id, context),
      ),
    ]);
  }
}
