import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { MESSAGE_BUS, MessageBus } from '@certlane/platform';
import { IssuerRevocation } from './issuer-revocation';

/** Serves `issuance.v1.revoke-certificate`: a serial revoked at its issuer (ADR 0046). */
@Injectable()
export class IssuerRevocationHandlers implements OnApplicationBootstrap {
  constructor(
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    private readonly issuerRevocation: IssuerRevocation,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.bus.handle('issuance.v1.revoke-certificate', (request, context) =>
      this.issuerRevocation.revoke(request, context),
    );
  }
}
