import { DynamicModule, Module } from '@nestjs/common';
import { ServiceCoreModule } from '@certlane/platform';
import { RenewalPolicyEntity } from './renewal-policies/renewal-policy.entity';
import { RenewalPolicyHandlers } from './renewal-policies/renewal-policy.handlers';
import { RenewalPolicyRepository } from './renewal-policies/renewal-policy.repository';
import { RenewalPolicyService } from './renewal-policies/renewal-policy.service';

/** The issuance service: owns schema `issuance` (renewal policies so far). */
@Module({})
export class IssuanceModule {
  static forRoot(): DynamicModule {
    return {
      module: IssuanceModule,
      imports: [ServiceCoreModule.forService({ service: 'issuance', entities: [RenewalPolicyEntity] })],
      providers: [RenewalPolicyRepository, RenewalPolicyService, RenewalPolicyHandlers],
    };
  }
}
