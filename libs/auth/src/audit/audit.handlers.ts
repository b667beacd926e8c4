import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { MESSAGE_BUS, MessageBus } from '@certlane/platform';
import { AuditStore } from './audit-store';

/** Serves the audit subjects: the list, export pages and the chain check. */
@Injectable()
export class AuditHandlers implements OnApplicationBootstrap {
  constructor(
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    private readonly store: AuditStore,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await Promise.all([
      this.bus.handle('auth.v1.list-audit-events', (request) => this.store.list(request)),
      this.bus.handle('auth.v1.export-audit-page', (request) => this.store.exportPage(request)),
      this.bus.handle('auth.v1.verify-audit-chain', () => this.store.verify()),
    ]);
  }
}
