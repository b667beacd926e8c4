import { Provider } from '@nestjs/common';
import { ApprovalHandlers } from './approval-decisions/approval.handlers';
import { ApprovalService } from './approval-decisions/approval.service';
import { CertificateKeySealer } from './certificates/certificate-keys';
import { CertificateLifecycleService } from './certificates/certificate-lifecycle.service';
import { CertificateHandlers } from './certificates/certificate.handlers';
import { CertificateRepository } from './certificates/certificate.repository';
import { CertificateService } from './certificates/certificate.service';
import { IssueAndRecordService } from './certificates/issue-and-record.service';
import { StatusTransitions } from './certificates/status-transitions';
import { ServerIssuanceRunner } from './certificates/server-issuance.runner';
import { VersionIssuance } from './certificates/version-issuance';
import { DigestFactsService } from './digest/digest-facts.service';
import { IdempotencyKeyRepository } from './idempotency/idempotency-key.repository';
import { IdempotencyKeyService } from './idempotency/idempotency-key.service';
import { CertificateCountCompactor } from './inventory/certificate-counts';
import { ListAnchorCache } from './inventory/list-anchors';
import { JobRepository } from './jobs/job.repository';
import { OwnerTeamHandlers } from './owners-teams/owner-team.handlers';
import { OwnerTeamRepository } from './owners-teams/owner-team.repository';
import { OwnerTeamService } from './owners-teams/owner-team.service';
import { StatsHandlers } from './stats/stats.handlers';
import { StatsService } from './stats/stats.service';

/** Certificates, versions, jobs as stored, list queries, stats, digest facts, owners and teams, idempotency keys, approval decisions (ADR 0024, 0045). */
export const INVENTORY_PROVIDERS: Provider[] = [
  { provide: ListAnchorCache, useFactory: () => new ListAnchorCache() },
  CertificateRepository,
  JobRepository,
  CertificateKeySealer,
  StatusTransitions,
  VersionIssuance,
  ServerIssuanceRunner,
  CertificateService,
  IssueAndRecordService,
  CertificateLifecycleService,
  CertificateHandlers,
  OwnerTeamRepository,
  OwnerTeamService,
  OwnerTeamHandlers,
  StatsService,
  StatsHandlers,
  DigestFactsService,
  IdempotencyKeyRepository,
  IdempotencyKeyService,
  CertificateCountCompactor,
  ApprovalService,
  ApprovalHandlers,
];
