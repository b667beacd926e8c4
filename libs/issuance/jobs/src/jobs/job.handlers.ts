import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { MESSAGE_BUS, MessageBus } from '@certlane/platform';
import { JobService } from './job.service';

/** Serves the job subjects of libs/contracts on the bus. */
@Injectable()
export class JobHandlers implements OnApplicationBootstrap {
  constructor(
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    private readonly jobs: JobService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await Promise.all([
      this.bus.handle('issuance.v1.list-jobs', (request) => this.jobs.list(request)),
      this.bus.handle('issuance.v1.get-job', (request) => this.jobs.get(request.id)),
      this.bus.handle('issuance.v1.cancel-job', (request, context) => this.jobs.cancel(request.id, context)),
      this.bus.handle('issuance.v1.approve-job', (request, context) =>
        this.jobs.approve(request.id, context),
      ),
      this.bus.handle('issuance.v1.reject-job', (request, context) => this.jobs.reject(request, context)),
      this.bus.handle('issuance.v1.verify-job', (request, context) => this.jobs.verify(request, context)),
      this.bus.handle('issuance.v1.get-job-verification', (request) => this.jobs.verification(request.id)),
    ]);
  }
}
