import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { ApprovalEvent } from '@certlane/contracts';
import { CertlaneLogger, LOGGER, MESSAGE_BUS, MessageBus } from '@certlane/platform';
import { AcmeService } from './acme.service';

/** Durable JetStream consumer name, shared by every replica of protocol-frontends. */
export const ACME_APPROVAL_CONSUMER = 'protocol-frontends-acme-approvals';

/**
 * Follows `issuance.v1.approval.decided` (ADR 0068 amendment, ninth stop): when an ACME order's
 * enrollment approval is approved, rejected, withdrawn or expires, the order waiting for it moves
 * at once (valid with its stored certificate, or invalid) rather than at the client's next poll,
 * so a client that went away leaves no order processing for ever. Each step is the compare-and-set
 * a poll makes, so a poll racing with it, another replica or a redelivered event change nothing
 * twice. When issuance does not answer, the order stays processing and the next poll moves it.
 */
@Injectable()
export class AcmeApprovalFollower implements OnApplicationBootstrap {
  constructor(
    private readonly acme: AcmeService,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(LOGGER) private readonly logger: CertlaneLogger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.bus.consume('issuance.v1.approval.decided', ACME_APPROVAL_CONSUMER, async (envelope) => {
      const orderId = acmeOrderOf(envelope.data);
      if (!orderId) return;
      const status = await this.acme.server.followApprovalDecision(envelope.data.id, orderId);
      if (status && status !== 'processing')
        this.logger.info(
          { approval_id: envelope.data.id, order_id: orderId, status },
          'ACME order moved by its approval decision',
        );
    });
  }
}

/** The ACME order an approval event is about, if it is one an ACME finalize opened. */
export function acmeOrderOf(event: ApprovalEvent): string | null {
  const enrollment = event?.enrollment;
  const orderId = enrollment?.reference?.order_id;
  return enrollment?.source === 'ACME' && typeof event.id === 'string' && typeof orderId === 'string'
    ? orderId
    : null;
}
