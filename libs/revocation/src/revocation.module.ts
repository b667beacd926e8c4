import { DynamicModule, Module } from '@nestjs/common';
import { ServiceCoreModule } from '@certlane/platform';
import { CrlPublisher } from './crl/crl-publisher';
import { CrlRepository } from './crl/crl.repository';
import { OcspFastLaneInstaller } from './http/ocsp-fast-lane';
import { RelyingPartyController } from './http/relying-party.controller';
import { IssuerCaDirectory } from './issuer-ca.directory';
import { OcspService } from './ocsp/ocsp.service';
import { ResponderKeys } from './ocsp/responder-keys';
import { ResponderRepository } from './ocsp/responder.repository';
import { RevocationHandlers } from './revocation.handlers';
import { REVOCATION_LISTENERS, RevocationConsumer } from './revocations/revocation-consumer';
import { RevocationRepository } from './revocations/revocation.repository';

/**
 * The revocation service (ADR 0021): keeps the revocations it hears from issuance, publishes a
 * CRL per issuer and answers OCSP with a delegated responder, on the bus (for the gateway's
 * /api/v1/crl and /api/v1/ocsp routes) and on its own listener for relying parties.
 */
@Module({})
export class RevocationModule {
  static forRoot(): DynamicModule {
    return {
      module: RevocationModule,
      imports: [ServiceCoreModule.forService({ service: 'revocation' })],
      controllers: [RelyingPartyController],
      providers: [
        RevocationRepository,
        CrlRepository,
        ResponderRepository,
        IssuerCaDirectory,
        ResponderKeys,
        CrlPublisher,
        OcspService,
        {
          provide: REVOCATION_LISTENERS,
          inject: [CrlPublisher, OcspService],
          useFactory: (crls: CrlPublisher, ocsp: OcspService) => [crls, ocsp],
        },
        RevocationConsumer,
        RevocationHandlers,
        OcspFastLaneInstaller,
      ],
    };
  }
}
