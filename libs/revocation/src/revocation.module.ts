import { DynamicModule, Module } from '@nestjs/common';
import { ServiceCoreModule } from '@certlane/platform';
import { CrlPublisher } from './crl/crl-publisher';
import { CrlRepository } from './crl/crl.repository';
import { OcspFastLaneInstaller } from './http/ocsp-fast-lane';
import { RelyingPartyController } from './http/relying-party.controller';
import { RelyingPartyOcsp } from './http/relying-party-ocsp';
import { IssuerCaDirectory } from './issuer-ca.directory';
import { RevocationFiles } from './publication/revocation-files';
import { OcspService } from './ocsp/ocsp.service';
import { ResponderKeys } from './ocsp/responder-keys';
import { ResponderRepository } from './ocsp/responder.repository';
import { RevocationHandlers } from './revocation.handlers';
import { REVOCATION_LISTENERS, RevocationConsumer } from './revocations/revocation-consumer';
import { RevocationRepository } from './revocations/revocation.repository';
import { ISSUANCE_LISTENERS, IssuedConsumer } from './issued/issued-consumer';
import { IssuedRepository } from './issued/issued.repository';
import { IssuedSerials } from './issued/issued-serials';

/**
 * The revocation service (ADR 0021, ADR 0023): keeps the certificates issuance issued and the
 * revocations it hears of, publishes a CRL per CA of each issuer and answers OCSP with a delegated
 * responder per CA, on the bus (for the gateway's
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
        IssuedRepository,
        IssuedSerials,
        CrlRepository,
        ResponderRepository,
        IssuerCaDirectory,
        ResponderKeys,
        RevocationFiles,
        CrlPublisher,
        OcspService,
        RelyingPartyOcsp,
        {
          provide: REVOCATION_LISTENERS,
          inject: [CrlPublisher, OcspService],
          useFactory: (crls: CrlPublisher, ocsp: OcspService) => [crls, ocsp],
        },
        RevocationConsumer,
        {
          provide: ISSUANCE_LISTENERS,
          inject: [OcspService, CrlPublisher],
          useFactory: (ocsp: OcspService, crls: CrlPublisher) => [ocsp, crls],
        },
        IssuedConsumer,
        RevocationHandlers,
        OcspFastLaneInstaller,
      ],
    };
  }
}
