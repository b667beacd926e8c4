import { DynamicModule, Module } from '@nestjs/common';
import { ServiceCoreModule } from '@certlane/platform';
import { AcmeAdminHandlers } from './acme/acme-admin.handlers';
import { AcmeController } from './acme/acme.controller';
import { AcmeService } from './acme/acme.service';
import { AcmeOperationsHandlers } from './acme/acme-operations.handlers';
import { AcmeApprovalFollower } from './acme/acme-approval-follower';
import { AcmeRevocationFollower } from './acme/acme-revocation-follower';
import { AcmeCaRevocationFollower } from './acme/acme-ca-revocation-follower';
import { ClientCertificateStatusService } from './client-certificate-status.service';
import { ProtocolLanesInstaller } from './protocol-lanes.installer';
import { EstAdminHandlers } from './est/est-admin.handlers';
import { EstController } from './est/est.controller';
import { EstService } from './est/est.service';
import { ScepAdminHandlers } from './scep/scep-admin.handlers';
import { ScepController } from './scep/scep.controller';
import { ScepService } from './scep/scep.service';

/**
 * The protocol-frontends service: the ACME server (issue 19, ADR 0053) on `/acme/...` of its
 * listener, over its schema `protocol_frontends`, and its operator routes (ADR 0060) on
 * `protocol-frontends.v1.acme-*`; EST profile management (issue 20, ADR 0058) on
 * `protocol-frontends.v1.est-*`; SCEP profile management (issue 21, ADR 0059) on
 * `protocol-frontends.v1.scep-*`; it answers `protocol-frontends.v1.ping`.
 */
@Module({})
export class ProtocolFrontendsModule {
  static forRoot(): DynamicModule {
    return {
      module: ProtocolFrontendsModule,
      imports: [ServiceCoreModule.forService({ service: 'protocol-frontends' })],
      controllers: [AcmeController, EstController, ScepController],
      providers: [
        ClientCertificateStatusService,
        AcmeService,
        AcmeAdminHandlers,
        AcmeOperationsHandlers,
        AcmeRevocationFollower,
        AcmeCaRevocationFollower,
        AcmeApprovalFollower,
        EstService,
        EstAdminHandlers,
        ScepService,
        ScepAdminHandlers,
        ProtocolLanesInstaller,
      ],
    };
  }
}
