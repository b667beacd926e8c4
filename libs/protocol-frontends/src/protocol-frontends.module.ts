import { DynamicModule, Module } from '@nestjs/common';
import { ServiceCoreModule } from '@certlane/platform';
import { AcmeController } from './acme/acme.controller';
import { AcmeService } from './acme/acme.service';

/**
 * The protocol-frontends service: the ACME server (issue 19, ADR 0053) on `/acme/...` of its
 * listener, over its schema `protocol_frontends`; it answers `protocol-frontends.v1.ping`.
 */
@Module({})
export class ProtocolFrontendsModule {
  static forRoot(): DynamicModule {
    return {
      module: ProtocolFrontendsModule,
      imports: [ServiceCoreModule.forService({ service: 'protocol-frontends' })],
      controllers: [AcmeController],
      providers: [AcmeService],
    };
  }
}
