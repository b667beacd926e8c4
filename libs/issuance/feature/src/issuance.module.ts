import { DynamicModule, Module } from '@nestjs/common';
import { CA_PROVIDERS } from '@certlane/issuance-ca';
import { UnitOfWork } from '@certlane/issuance-data-access';
import { GOVERNANCE_PROVIDERS, RenewalPolicyEntity } from '@certlane/issuance-governance';
import { INVENTORY_PROVIDERS } from '@certlane/issuance-inventory';
import { JOBS_PROVIDERS } from '@certlane/issuance-jobs';
import { ServiceCoreModule } from '@certlane/platform';

/**
 * The issuance service (ADR 0024; its libraries: ADR 0050): owns schema `issuance`. One
 * deployable composed of five libraries, lowest first: data-access (the unit of work), ca (issuers, the local CA, revocation at
 * the issuer), governance (renewal policies, profiles, approvals, policy rules), inventory
 * (certificates, versions, stored jobs, list queries, stats, owners and teams) and jobs (job
 * routes, agent work, deployments, renewals, expiry, bulk).
 */
@Module({})
export class IssuanceModule {
  static forRoot(): DynamicModule {
    return {
      module: IssuanceModule,
      imports: [ServiceCoreModule.forService({ service: 'issuance', entities: [RenewalPolicyEntity] })],
      providers: [
        UnitOfWork,
        ...CA_PROVIDERS,
        ...GOVERNANCE_PROVIDERS,
        ...INVENTORY_PROVIDERS,
        ...JOBS_PROVIDERS,
      ],
    };
  }
}
