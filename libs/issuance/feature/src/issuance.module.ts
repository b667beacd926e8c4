import { AgentlessDeploymentHandlers } from './agentless-deployments/agentless-deployment.handlers';
import { AgentlessDeploymentService } from './agentless-deployments/agentless-deployment.service';
import { DynamicModule, Module } from '@nestjs/common';
import { ServiceCoreModule } from '@certlane/platform';
import { BulkHandlers } from './bulk/bulk.handlers';
import { BulkRepository } from './bulk/bulk.repository';
import { BulkService } from './bulk/bulk.service';
// Certificate inventory, lifecycle and jobs (ADR 0024).
import { CertificateHandlers } from './certificates/certificate.handlers';
import { CertificateKeySealer } from './certificates/certificate-keys';
import { CertificateLifecycleService } from './certificates/certificate-lifecycle.service';
import { CertificateRepository } from './certificates/certificate.repository';
import { CertificateService } from './certificates/certificate.service';
import { InventoryWriter } from './certificates/inventory-writer';
import { ServerIssuanceRunner } from './certificates/server-issuance.runner';
import { JobHandlers } from './jobs/job.handlers';
import { JobRepository } from './jobs/job.repository';
import { JobService } from './jobs/job.service';
import { IssuerRepository } from './issuers/issuer.repository';
import { IssuerService, LOCAL_CA_HOOKS } from './issuers/issuer.service';
import { VersionIssuance } from './certificates/version-issuance';
import { ISSUER_CONNECTORS, issuerConnectors } from './issuers/issuer-connectors';
import { CaRepository } from './local-ca/ca.repository';
import { IssuanceSecrets } from './local-ca/issuance-secrets';
import { IssuerHandlers, LocalCaSeeder } from './local-ca/local-ca.handlers';
import { LocalCaService } from './local-ca/local-ca.service';
import { IssuerRevocation } from './revocations/issuer-revocation';
import { RenewalPolicyEntity } from './renewal-policies/renewal-policy.entity';
import { RenewalPolicyHandlers } from './renewal-policies/renewal-policy.handlers';
import { RenewalPolicyRepository } from './renewal-policies/renewal-policy.repository';
import { RenewalPolicyService } from './renewal-policies/renewal-policy.service';
import { IssuedCertificateLookupHandler } from './issued-certificates/issued-certificate-lookup';
// Inventory: owners and teams, stats, the expiry loop (ADR 0024).
import { ExpiryLoop } from './expiry/expiry-loop';
import { StaleJobReaper } from './jobs/stale-job-reaper';
import { CertificateCountCompactor } from './inventory/certificate-counts';
import { ExpirySweep } from './expiry/expiry-sweep';
import { OwnerTeamHandlers } from './owners-teams/owner-team.handlers';
import { OwnerTeamRepository } from './owners-teams/owner-team.repository';
import { OwnerTeamService } from './owners-teams/owner-team.service';
import { StatsHandlers } from './stats/stats.handlers';
import { IdempotencyKeyRepository } from './idempotency/idempotency-key.repository';
import { IdempotencyKeyService } from './idempotency/idempotency-key.service';
import { StatsService } from './stats/stats.service';
// The agent work protocol (ADR 0027).
import { AgentWorkHandlers } from './agent-work/agent-work.handlers';
import { AgentWorkRepository } from './agent-work/agent-work.repository';
import { AgentWorkService } from './agent-work/agent-work.service';
// What blocks an agent's retirement (ADR 0026).
import { AgentDependenciesHandler } from './agent-dependencies/agent-dependencies.handler';
import { AgentRetirementHandler } from './agent-dependencies/agent-retirement.handler';
// Profiles and approvals (ADR 0025).
import { ApprovalGate } from './approvals/approval-gate';
import { ApprovalRepository } from './approvals/approval.repository';
import { ApprovalService } from './approvals/approval.service';
import { ProfileEnforcer } from './profiles/profile-enforcer';
import { ProfileHandlers } from './profiles/profile.handlers';
import { ProfileRepository } from './profiles/profile.repository';
import { ProfileService } from './profiles/profile.service';
// Policy rules, violations and renewal scheduling (ADR 0028).
import { PolicyEnforcer } from './policies/policy-enforcer';
import { PolicyHandlers } from './policies/policy.handlers';
import { PolicyRepository } from './policies/policy.repository';
import { PolicyService } from './policies/policy.service';
import { PolicySweeper } from './policies/policy-sweeper';
import { RenewalHandlers } from './renewals/renewal.handlers';
import { ListAnchorCache } from './inventory/list-anchors';
import { RenewalRepository } from './renewals/renewal.repository';
import { RenewalScheduler } from './renewals/renewal-scheduler';

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
        { provide: ISSUER_CONNECTORS, useFactory: issuerConnectors },
        LocalCaService,
        { provide: LOCAL_CA_HOOKS, useExisting: LocalCaService },
        IssuerService,
        IssuerRevocation,
        LocalCaSeeder,
        IssuerHandlers,
        IssuedCertificateLookupHandler,
        // Bulk operations (spec 4.2, 4.3)
        BulkRepository,
        BulkService,
        BulkHandlers,
        // Certificate inventory, lifecycle and jobs (ADR 0024).
        { provide: ListAnchorCache, useFactory: () => new ListAnchorCache() },
        CertificateRepository,
        JobRepository,
        CertificateKeySealer,
        InventoryWriter,
        VersionIssuance,
        ServerIssuanceRunner,
        CertificateService,
        CertificateLifecycleService,
        CertificateHandlers,
        JobService,
        JobHandlers,
        // Inventory: owners and teams, stats, the expiry loop (ADR 0024).
        OwnerTeamRepository,
        OwnerTeamService,
        OwnerTeamHandlers,
        StatsService,
        StatsHandlers,
        ExpirySweep,
        ExpiryLoop,
        StaleJobReaper,
        // Idempotency-Key storage for the gateway (ADR 0045).
        IdempotencyKeyRepository,
        IdempotencyKeyService,
        CertificateCountCompactor,
        // The agent work protocol (ADR 0027).
        AgentWorkRepository,
        AgentWorkService,
        AgentWorkHandlers,
        // Agentless deployments run by deployment-dispatch (ADR 0031).
        AgentlessDeploymentService,
        AgentlessDeploymentHandlers,
        // What blocks an agent's retirement (ADR 0026).
        AgentDependenciesHandler,
        AgentRetirementHandler,
        // Profiles and approvals (ADR 0025).
        ProfileRepository,
        ApprovalRepository,
        ApprovalGate,
        ProfileEnforcer,
        ProfileService,
        ApprovalService,
        ProfileHandlers,
        // Policy rules, violations and renewal scheduling (ADR 0028).
        PolicyRepository,
        PolicyEnforcer,
        PolicySweeper,
        PolicyService,
        PolicyHandlers,
        RenewalRepository,
        RenewalScheduler,
        RenewalHandlers,
      ],
    };
  }
}
