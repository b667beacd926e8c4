import { RequestContract, EventContract, shape } from '../messaging/contract';
import { Page } from '../pagination/page';
import { DigestFactsDto, DigestFactsRequest } from '../notifications/digest.dto';
import {
  BulkReassignRequest,
  BulkReassignResult,
  BulkRenewRequest,
  BulkRenewResult,
  BulkRevokeRequest,
  BulkRevokeResult,
} from './bulk.dto';
import {
  CertificateDto,
  CertificateIdRequest,
  CertificateStatusChanged,
  CertificateVersionDto,
  CreateCertificateRequest,
  IssueAndRecordRequest,
  IssuedAndRecordedDto,
  DeployCertificateRequest,
  ExportPkcs12Request,
  ListCertificatesRequest,
  ListCertificateVersionsRequest,
  PemExportDto,
  Pkcs12ExportDto,
  RenewCertificateRequest,
  RevokeManagedCertificateRequest,
  StatusResponse,
  UpdateCertificateRequest,
} from './certificate.dto';
import {
  CreateOwnerRequest,
  CreateTeamRequest,
  ListOwnersRequest,
  ListTeamsRequest,
  OwnerDto,
  OwnerOrTeamDeleted,
  OwnerOrTeamIdRequest,
  TeamDto,
  UpdateOwnerRequest,
  UpdateTeamRequest,
} from './owners-teams.dto';
import {
  ExpirationTimelineDto,
  IssuanceRateDto,
  JobTrendsDto,
  StatsSummaryDto,
  StatsWindowRequest,
} from './stats.dto';
import {
  JobCreated,
  JobDto,
  JobIdRequest,
  JobStatusChanged,
  JobVerificationDto,
  ListJobsRequest,
  RejectJobRequest,
  VerifyJobRequest,
} from '../jobs/job.dto';

/** The certificate inventory, owners and teams, jobs and stats: all served by issuance. */
export const certificateRequestContracts = {
  'issuance.v1.list-certificates': {
    request: ListCertificatesRequest,
    response: shape<Page<CertificateDto>>(),
  },
  'issuance.v1.get-certificate': { request: CertificateIdRequest, response: shape<CertificateDto>() },
  'issuance.v1.create-certificate': { request: CreateCertificateRequest, response: shape<CertificateDto>() },
  'issuance.v1.issue-and-record': { request: IssueAndRecordRequest, response: shape<IssuedAndRecordedDto>() },
  'issuance.v1.update-certificate': { request: UpdateCertificateRequest, response: shape<CertificateDto>() },
  'issuance.v1.archive-certificate': { request: CertificateIdRequest, response: shape<CertificateDto>() },
  'issuance.v1.list-certificate-versions': {
    request: ListCertificateVersionsRequest,
    response: shape<Page<CertificateVersionDto>>(),
  },
  'issuance.v1.renew-certificate': { request: RenewCertificateRequest, response: shape<StatusResponse>() },
  'issuance.v1.deploy-certificate': { request: DeployCertificateRequest, response: shape<StatusResponse>() },
  'issuance.v1.revoke-managed-certificate': {
    request: RevokeManagedCertificateRequest,
    response: shape<StatusResponse>(),
  },
  'issuance.v1.export-certificate-pem': { request: CertificateIdRequest, response: shape<PemExportDto>() },
  'issuance.v1.export-certificate-pkcs12': {
    request: ExportPkcs12Request,
    response: shape<Pkcs12ExportDto>(),
  },
  'issuance.v1.bulk-revoke-certificates': { request: BulkRevokeRequest, response: shape<BulkRevokeResult>() },
  'issuance.v1.est-bulk-revoke-certificates': {
    request: BulkRevokeRequest,
    response: shape<BulkRevokeResult>(),
  },
  'issuance.v1.bulk-renew-certificates': { request: BulkRenewRequest, response: shape<BulkRenewResult>() },
  'issuance.v1.bulk-reassign-certificates': {
    request: BulkReassignRequest,
    response: shape<BulkReassignResult>(),
  },
  'issuance.v1.list-owners': { request: ListOwnersRequest, response: shape<Page<OwnerDto>>() },
  'issuance.v1.get-owner': { request: OwnerOrTeamIdRequest, response: shape<OwnerDto>() },
  'issuance.v1.create-owner': { request: CreateOwnerRequest, response: shape<OwnerDto>() },
  'issuance.v1.update-owner': { request: UpdateOwnerRequest, response: shape<OwnerDto>() },
  'issuance.v1.delete-owner': { request: OwnerOrTeamIdRequest, response: shape<OwnerOrTeamDeleted>() },
  'issuance.v1.list-teams': { request: ListTeamsRequest, response: shape<Page<TeamDto>>() },
  'issuance.v1.get-team': { request: OwnerOrTeamIdRequest, response: shape<TeamDto>() },
  'issuance.v1.create-team': { request: CreateTeamRequest, response: shape<TeamDto>() },
  'issuance.v1.update-team': { request: UpdateTeamRequest, response: shape<TeamDto>() },
  'issuance.v1.delete-team': { request: OwnerOrTeamIdRequest, response: shape<OwnerOrTeamDeleted>() },
  'issuance.v1.list-jobs': { request: ListJobsRequest, response: shape<Page<JobDto>>() },
  'issuance.v1.get-job': { request: JobIdRequest, response: shape<JobDto>() },
  'issuance.v1.cancel-job': { request: JobIdRequest, response: shape<StatusResponse>() },
  'issuance.v1.approve-job': { request: JobIdRequest, response: shape<JobDto>() },
  'issuance.v1.reject-job': { request: RejectJobRequest, response: shape<JobDto>() },
  'issuance.v1.verify-job': { request: VerifyJobRequest, response: shape<JobVerificationDto>() },
  'issuance.v1.get-job-verification': { request: JobIdRequest, response: shape<JobVerificationDto>() },
  'issuance.v1.get-stats-summary': { request: StatsWindowRequest, response: shape<StatsSummaryDto>() },
  'issuance.v1.get-expiration-timeline': {
    request: StatsWindowRequest,
    response: shape<ExpirationTimelineDto>(),
  },
  'issuance.v1.get-digest-facts': { request: DigestFactsRequest, response: shape<DigestFactsDto>() },
  'issuance.v1.get-issuance-rate': { request: StatsWindowRequest, response: shape<IssuanceRateDto>() },
  'issuance.v1.get-job-trends': { request: StatsWindowRequest, response: shape<JobTrendsDto>() },
} satisfies Record<string, RequestContract<object, unknown>>;

export const certificateEventContracts = {
  'issuance.v1.certificate.created': { payload: shape<CertificateDto>() },
  'issuance.v1.certificate.updated': { payload: shape<CertificateDto>() },
  'issuance.v1.certificate.archived': { payload: shape<CertificateDto>() },
  'issuance.v1.certificate.status-changed': { payload: shape<CertificateStatusChanged>() },
  'issuance.v1.job.created': { payload: shape<JobCreated>() },
  'issuance.v1.job.status-changed': { payload: shape<JobStatusChanged>() },
} satisfies Record<string, EventContract<unknown>>;
