import { DynamicModule, Module } from '@nestjs/common';
import { ServiceCoreModule } from '@certlane/platform';
import { IssuerRepository } from './issuers/issuer.repository';
import { IssuerService, LOCAL_CA_HOOKS } from './issuers/issuer.service';
import { CaRepository } from './local-ca/ca.repository';
import { IssuanceSecrets } from './local-ca/issuance-secrets';
import { IssuerHandlers, LocalCaSeeder } from './local-ca/local-ca.handlers';
import { LocalCaService } from './local-ca/local-ca.service';
import { RenewalPolicyEntity } from './renewal-policies/renewal-policy.entity';
import { RenewalPolicyHandlers } from './renewal-policies/renewal-policy.handlers';
import { RenewalPolicyRepository } from './renewal-policies/renewal-policy.repository';
import { RenewalPolicyService } from './renewal-policies/renewal-policy.service';

/** The issuance service: owns schema `issuance` (renewal policies, issuers, the local CA). */
@Module({})
export class IssuanceModule {
  static forRoot(): DynamicModule {
    return {
      module: IssuanceModule,
      imports: [ServiceCoreModule.forService({ service: 'issuance', entities: [RenewalPolicyEntity] })],
      providers: [
        RenewalPolicyRepository,
        RenewalPolicyService,
        RenewalPolicyHandlers,
        IssuanceSecrets,
        IssuerRepository,
        CaRepository,
        LocalCaService,
        { provide: LOCAL_CA_HOOKS, useExisting: LocalCaService },
        IssuerService,
        LocalCaSeeder,
        IssuerHandlers,
      ],
    };
  }
}
