import { Inject, Injectable } from '@nestjs/common';
import { ErrorCode } from '@certlane/contracts';
import { CertificateAttributes } from '@certlane/notifier-domain';
import { MESSAGE_BUS, MessageBus } from '@certlane/platform';

/**
 * Reads a certificate's routing attributes from issuance (`issuance.v1.get-certificate`) for
 * revocation and job events. A certificate that no longer exists has none (undefined); any other
 * failure (issuance unreachable) is thrown, so the event is not acknowledged and JetStream
 * redelivers it later: routing by owner or team is not silently lost.
 */
@Injectable()
export class CertificateLookup {
  constructor(@Inject(MESSAGE_BUS) private readonly bus: MessageBus) {}

  async attributes(certificateId: string): Promise<CertificateAttributes | undefined> {
    try {
      const certificate = await this.bus.request('issuance.v1.get-certificate', { id: certificateId });
      return {
        common_name: certificate.common_name,
        owner_id: certificate.owner_id,
        team_id: certificate.team_id,
        environment: certificate.environment,
        issuer_id: certificate.issuer_id,
      };
    } catch (error) {
      if ((error as { code?: string }).code === ErrorCode.CertificateNotFound) return undefined;
      throw error;
    }
  }
}
