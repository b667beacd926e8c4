import {
  ListNotificationsRequest,
  NotificationDto,
  NotificationIdRequest,
} from './notifications/notification.dto';
import {
  CreateNotifierRequest,
  NotifierDto,
  NotifierIdRequest,
  NotifierTestResult,
  UpdateNotifierRequest,
} from './notifications/notifier.dto';
import {
  CreateRoutingRuleRequest,
  RoutingRuleDto,
  RoutingRuleIdRequest,
  UpdateRoutingRuleRequest,
} from './notifications/routing-rule.dto';
import { ContactDto, ContactKeyRequest, SetContactRequest } from './notifications/contact.dto';
import { DigestPreviewDto, DigestPreviewRequest, DigestSendResult } from './notifications/digest.dto';
import { PageQuery } from './pagination/page';
import { agentEventContracts, agentRequestContracts } from './agents/agent-subjects';
import { certificateEventContracts, certificateRequestContracts } from './certificates/certificate-subjects';
// The agent work protocol (ADR 0027).
import { agentWorkRequestContracts } from './agents/agent-work-subjects';
// Agentless deployments (ADR 0031).
import { agentlessDeploymentRequestContracts } from './deployments/agentless-deployment-subjects';
import { profileEventContracts, profileRequestContracts } from './profiles/profile-subjects';
import {
  BeginIdempotentRequest,
  FinishIdempotentRequest,
  IdempotencyKeyDone,
  IdempotencyKeyRef,
  IdempotentBegin,
} from './idempotency/idempotency.dto';
import { policyEventContracts, policyRequestContracts } from './policies/policy-subjects';
// Endpoint health checks (ADR 0057).
import {
  healthCheckEventContracts,
  healthCheckRequestContracts,
} from './health-checks/health-check-subjects';
import { scepProbeRequestContracts } from './network-scan/scep-probe-subjects';
import {
  discoveredCertificateEventContracts,
  discoveredCertificateRequestContracts,
} from './network-scan/discovered-certificate-subjects';
import { scanTargetRequestContracts } from './network-scan/scan-target-subjects';
import {
  CertificateIssued,
  CertificateRevoked,
  GetIssuedCertificateRequest,
  IssuedCertificateLookup,
  IssueOcspResponderRequest,
  IssuerCaInfo,
  IssuerCaRequest,
  OcspResponderCertificate,
  RevokeCertificateRequest,
  SerialRevoked,
  SignDigestRequest,
  SignDigestResponse,
} from './pki/revocation.dto';
import { AcmeHttpForwardAnswer, AcmeHttpForwardRequest } from './acme/acme-forward.dto';
import {
  AcmeAccountDto,
  AcmeAccountIdRequest,
  AcmeProfileDto,
  AcmeProfileIdRequest,
  AcmeProfileList,
  CreateAcmeProfileRequest,
  ListAcmeProfilesRequest,
  UpdateAcmeProfileCommand,
  AcmeEabKeyCreated,
  AcmeEabKeyDto,
  AcmeEabKeyIdRequest,
  CreateAcmeEabKeyRequest,
  ListAcmeAccountsRequest,
} from './acme/acme-admin.dto';
import {
  AcmeBulkEarlyRenewalResult,
  AcmeOrderDetailDto,
  AcmeOrderDto,
  AcmeOrderIdRequest,
  AcmeRenewalInfoDto,
  AcmeValidationAttemptDto,
  BulkRenewAcmeCertificatesEarlyRequest,
  ListAcmeOrdersRequest,
  ListAcmeValidationAttemptsRequest,
  RenewAcmeCertificateEarlyCommand,
} from './acme/acme-operations.dto';
import {
  AnswerOcspRequest,
  CrlDocument,
  GetCrlRequest,
  GetOcspResponseRequest,
  ListRevocationsRequest,
  OcspResponseDocument,
  RevocationList,
} from './pki/revocation-service.dto';
import {
  CaCertificateDto,
  CaCrossCertificateDto,
  CaCrossCertificateIdRequest,
  CaIdRequest,
  RevokeCaRequest,
  CaRevoked,
  CaExpiryWarning,
  RevokeCaCrossCertificateRequest,
  CreateCaCrossCertificateRequest,
  CreateCaRequest,
  CreateIssuerRequest,
  IssueCertificateRequest,
  IssuedCertificateDto,
  IssuerDeleted,
  IssuerDto,
  IssuerIdOnlyRequest,
  IssuerTestResult,
  ListCaCertificatesRequest,
  ListCaCrossCertificatesRequest,
  ListIssuersRequest,
  UpdateIssuerRequest,
  UploadCaCertificateRequest,
} from './pki/issuers.dto';
import { AuditChainVerification } from './audit/audit-chain';
import {
  AuditExportPage,
  ExportAuditPageRequest,
  ListAuditEventsRequest,
  VerifyAuditChainRequest,
} from './audit/audit-query';
import { AuditEventDto, AuditRecord } from './audit/audit-record';
import { EventContract, RequestContract, shape } from './messaging/contract';
import { Page } from './pagination/page';
import {
  CreateRenewalPolicyRequest,
  ListRenewalPoliciesRequest,
  RenewalPolicyDeleted,
  RenewalPolicyDto,
  RenewalPolicyIdRequest,
  UpdateRenewalPolicyRequest,
} from './renewal-policies/renewal-policy.dto';
import { PingRequest, PingResponse } from './system/ping.dto';
import {
  CreateRoleRequest,
  GrantCommand,
  GrantDto,
  GrantRequest,
  GrantsChanged,
  ListGrantsRequest,
  ListRolesRequest,
  RoleDto,
  RoleIdRequest,
  UpdateRoleRequest,
} from './auth/roles.dto';
import {
  ActorRoles,
  ApiKeyDto,
  ApiKeyIdRequest,
  ApiKeyRevoked,
  ApiKeyWithSecret,
  AuthenticateApiKeyRequest,
  AuthenticateApiKeyResponse,
  BootstrapConsumed,
  BootstrapRequest,
  BootstrapResponse,
  BootstrapStatus,
  BootstrapStatusRequest,
  CreateApiKeyCommand,
  ListActorsRequest,
  ListApiKeysRequest,
} from './auth/auth.dto';
import {
  AuthenticateSessionRequest,
  AuthenticateSessionResponse,
  ListSessionsCommand,
  LoggedOut,
  LogoutCommand,
  RevokeOtherSessionsCommand,
  RevokeSessionCommand,
  SessionDto,
  SessionRevoked,
  SessionsRevoked,
} from './auth/sessions.dto';
import {
  ActorIdRequest,
  BreakGlassCredentialDto,
  BreakGlassCredentialSet,
  BreakGlassLoginCommand,
  BreakGlassLoginResult,
  ListBreakGlassCredentialsRequest,
  SetBreakGlassCredentialRequest,
} from './auth/breakglass.dto';
import {
  BeginOidcLoginCommand,
  CompleteOidcLoginCommand,
  CreateOidcGroupMappingCommand,
  CreateOidcProviderRequest,
  ListOidcGroupMappingsRequest,
  ListOidcProvidersRequest,
  OidcBackChannelLogoutCommand,
  OidcBackChannelLogoutResult,
  OidcGroupMappingDeleted,
  OidcGroupMappingDto,
  OidcGroupMappingIdRequest,
  OidcJwksStatus,
  OidcLoginBegun,
  OidcLoginCompleted,
  OidcProviderDeleted,
  OidcProviderDto,
  OidcProviderIdRequest,
  OidcTestResult,
  TestOidcProviderRequest,
  UpdateOidcProviderCommand,
} from './auth/oidc.dto';
import {
  CleanupDemoResidualRequest,
  DeactivateUserCommand,
  DemoResidualRemoved,
  ListUsersRequest,
  UserDeactivated,
  UserDto,
} from './auth/users.dto';
import {
  CreateEstProfileRequest,
  EstProfileDto,
  EstProfileIdRequest,
  EstProfileList,
  ListEstProfilesRequest,
  EstTrustReloadResult,
  ReloadEstTrustRequest,
  UpdateEstProfileCommand,
} from './est/est-profile.dto';
import { EstHttpForwardAnswer, EstHttpForwardRequest } from './est/est-forward.dto';
import {
  CreateEstKeyEncryptionKeyRequest,
  EstKeyEncryptionKeyCreated,
  EstKeyEncryptionKeyDto,
  EstKeyEncryptionKeyIdRequest,
  ListEstKeyEncryptionKeysRequest,
} from './est/est-key-encryption-key.dto';
import {
  CreateScepProfileRequest,
  ListScepProfilesRequest,
  ReloadScepMdmTrustRequest,
  ScepMdmStats,
  ScepMdmStatsRequest,
  ScepMdmTrustReloadResult,
  ScepProfileDto,
  ScepProfileIdRequest,
  ScepProfileList,
  UpdateScepProfileCommand,
} from './scep/scep-profile.dto';
import { ScepHttpForwardAnswer, ScepHttpForwardRequest } from './scep/scep-forward.dto';

/** Every deployable service; the first segment of its subjects and the name of its schema. */
export const SERVICE_NAMES = [
  'api-gateway',
  'auth',
  'issuance',
  'deployment-dispatch',
  'revocation',
  'protocol-frontends',
  'notifier',
  'health-monitor',
] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

/** Request/reply subjects: `<service>.v1.<verb-noun>`, served by a queue group of that service. */
export const requestContracts = {
  ...certificateRequestContracts,
  // Idempotency-Key (ADR 0045): the keys live in issuance's schema.
  'issuance.v1.idempotency-begin': { request: BeginIdempotentRequest, response: shape<IdempotentBegin>() },
  'issuance.v1.idempotency-finish': {
    request: FinishIdempotentRequest,
    response: shape<IdempotencyKeyDone>(),
  },
  'issuance.v1.idempotency-abandon': { request: IdempotencyKeyRef, response: shape<IdempotencyKeyDone>() },
  ...agentWorkRequestContracts,
  ...agentlessDeploymentRequestContracts,
  ...agentRequestContracts,
  ...profileRequestContracts,
  ...policyRequestContracts,
  'issuance.v1.list-renewal-policies': {
    request: ListRenewalPoliciesRequest,
    response: shape<Page<RenewalPolicyDto>>(),
  },
  'issuance.v1.get-renewal-policy': { request: RenewalPolicyIdRequest, response: shape<RenewalPolicyDto>() },
  'issuance.v1.create-renewal-policy': {
    request: CreateRenewalPolicyRequest,
    response: shape<RenewalPolicyDto>(),
  },
  'issuance.v1.update-renewal-policy': {
    request: UpdateRenewalPolicyRequest,
    response: shape<RenewalPolicyDto>(),
  },
  'issuance.v1.delete-renewal-policy': {
    request: RenewalPolicyIdRequest,
    response: shape<RenewalPolicyDeleted>(),
  },
  'auth.v1.ping': { request: PingRequest, response: shape<PingResponse>() },
  'auth.v1.authenticate-api-key': {
    request: AuthenticateApiKeyRequest,
    response: shape<AuthenticateApiKeyResponse>(),
  },
  'auth.v1.get-bootstrap-status': { request: BootstrapStatusRequest, response: shape<BootstrapStatus>() },
  'auth.v1.bootstrap': { request: BootstrapRequest, response: shape<BootstrapResponse>() },
  'auth.v1.list-api-keys': { request: ListApiKeysRequest, response: shape<Page<ApiKeyDto>>() },
  'auth.v1.create-api-key': { request: CreateApiKeyCommand, response: shape<ApiKeyWithSecret>() },
  'auth.v1.rotate-api-key': { request: ApiKeyIdRequest, response: shape<ApiKeyWithSecret>() },
  'auth.v1.delete-api-key': { request: ApiKeyIdRequest, response: shape<ApiKeyRevoked>() },
  'auth.v1.list-actors': { request: ListActorsRequest, response: shape<Page<ActorRoles>>() },
  'auth.v1.list-roles': { request: ListRolesRequest, response: shape<Page<RoleDto>>() },
  'auth.v1.get-role': { request: RoleIdRequest, response: shape<RoleDto>() },
  'auth.v1.create-role': { request: CreateRoleRequest, response: shape<RoleDto>() },
  'auth.v1.update-role': { request: UpdateRoleRequest, response: shape<RoleDto>() },
  'auth.v1.delete-role': { request: RoleIdRequest, response: shape<GrantsChanged>() },
  'auth.v1.grant-role': { request: GrantCommand, response: shape<GrantDto>() },
  'auth.v1.revoke-role': { request: GrantRequest, response: shape<GrantsChanged>() },
  'auth.v1.list-grants': { request: ListGrantsRequest, response: shape<Page<GrantDto>>() },
  'auth.v1.authenticate-session': {
    request: AuthenticateSessionRequest,
    response: shape<AuthenticateSessionResponse>(),
  },
  'auth.v1.logout': { request: LogoutCommand, response: shape<LoggedOut>() },
  'auth.v1.list-sessions': { request: ListSessionsCommand, response: shape<Page<SessionDto>>() },
  'auth.v1.revoke-session': { request: RevokeSessionCommand, response: shape<SessionRevoked>() },
  'auth.v1.revoke-other-sessions': {
    request: RevokeOtherSessionsCommand,
    response: shape<SessionsRevoked>(),
  },
  'auth.v1.breakglass-login': { request: BreakGlassLoginCommand, response: shape<BreakGlassLoginResult>() },
  'auth.v1.list-breakglass-credentials': {
    request: ListBreakGlassCredentialsRequest,
    response: shape<Page<BreakGlassCredentialDto>>(),
  },
  'auth.v1.set-breakglass-credential': {
    request: SetBreakGlassCredentialRequest,
    response: shape<BreakGlassCredentialSet>(),
  },
  'auth.v1.delete-breakglass-credential': { request: ActorIdRequest, response: shape<SessionsRevoked>() },
  'auth.v1.unlock-breakglass-credential': {
    request: ActorIdRequest,
    response: shape<BreakGlassCredentialDto>(),
  },
  'auth.v1.list-oidc-providers': {
    request: ListOidcProvidersRequest,
    response: shape<Page<OidcProviderDto>>(),
  },
  'auth.v1.create-oidc-provider': { request: CreateOidcProviderRequest, response: shape<OidcProviderDto>() },
  'auth.v1.update-oidc-provider': { request: UpdateOidcProviderCommand, response: shape<OidcProviderDto>() },
  'auth.v1.delete-oidc-provider': { request: OidcProviderIdRequest, response: shape<OidcProviderDeleted>() },
  'auth.v1.refresh-oidc-provider': { request: OidcProviderIdRequest, response: shape<OidcJwksStatus>() },
  'auth.v1.get-oidc-jwks-status': { request: OidcProviderIdRequest, response: shape<OidcJwksStatus>() },
  'auth.v1.test-oidc-provider': { request: TestOidcProviderRequest, response: shape<OidcTestResult>() },
  'auth.v1.list-oidc-group-mappings': {
    request: ListOidcGroupMappingsRequest,
    response: shape<Page<OidcGroupMappingDto>>(),
  },
  'auth.v1.create-oidc-group-mapping': {
    request: CreateOidcGroupMappingCommand,
    response: shape<OidcGroupMappingDto>(),
  },
  'auth.v1.delete-oidc-group-mapping': {
    request: OidcGroupMappingIdRequest,
    response: shape<OidcGroupMappingDeleted>(),
  },
  'auth.v1.oidc-begin-login': { request: BeginOidcLoginCommand, response: shape<OidcLoginBegun>() },
  'auth.v1.oidc-complete-login': { request: CompleteOidcLoginCommand, response: shape<OidcLoginCompleted>() },
  'auth.v1.oidc-back-channel-logout': {
    request: OidcBackChannelLogoutCommand,
    response: shape<OidcBackChannelLogoutResult>(),
  },
  'auth.v1.list-users': { request: ListUsersRequest, response: shape<Page<UserDto>>() },
  'auth.v1.deactivate-user': { request: DeactivateUserCommand, response: shape<UserDeactivated>() },
  'auth.v1.reactivate-user': { request: ActorIdRequest, response: shape<UserDto>() },
  'auth.v1.cleanup-demo-residual': {
    request: CleanupDemoResidualRequest,
    response: shape<DemoResidualRemoved>(),
  },
  'auth.v1.list-audit-events': { request: ListAuditEventsRequest, response: shape<Page<AuditEventDto>>() },
  'auth.v1.export-audit-page': { request: ExportAuditPageRequest, response: shape<AuditExportPage>() },
  'auth.v1.verify-audit-chain': {
    request: VerifyAuditChainRequest,
    response: shape<AuditChainVerification>(),
  },
  'issuance.v1.get-issuer-ca': { request: IssuerCaRequest, response: shape<IssuerCaInfo>() },
  'issuance.v1.get-issued-certificate': {
    request: GetIssuedCertificateRequest,
    response: shape<IssuedCertificateLookup>(),
  },
  'issuance.v1.sign-digest': { request: SignDigestRequest, response: shape<SignDigestResponse>() },
  'issuance.v1.issue-ocsp-responder': {
    request: IssueOcspResponderRequest,
    response: shape<OcspResponderCertificate>(),
  },
  'issuance.v1.revoke-certificate': {
    request: RevokeCertificateRequest,
    response: shape<SerialRevoked>(),
  },
  'issuance.v1.issue-certificate': {
    request: IssueCertificateRequest,
    response: shape<IssuedCertificateDto>(),
  },
  'issuance.v1.list-issuers': { request: ListIssuersRequest, response: shape<Page<IssuerDto>>() },
  'issuance.v1.get-issuer': { request: IssuerIdOnlyRequest, response: shape<IssuerDto>() },
  'issuance.v1.create-issuer': { request: CreateIssuerRequest, response: shape<IssuerDto>() },
  'issuance.v1.update-issuer': { request: UpdateIssuerRequest, response: shape<IssuerDto>() },
  'issuance.v1.delete-issuer': { request: IssuerIdOnlyRequest, response: shape<IssuerDeleted>() },
  'issuance.v1.test-issuer': { request: IssuerIdOnlyRequest, response: shape<IssuerTestResult>() },
  'issuance.v1.list-cas': { request: ListCaCertificatesRequest, response: shape<Page<CaCertificateDto>>() },
  'issuance.v1.get-ca': { request: CaIdRequest, response: shape<CaCertificateDto>() },
  'issuance.v1.create-ca': { request: CreateCaRequest, response: shape<CaCertificateDto>() },
  'issuance.v1.retire-ca': { request: CaIdRequest, response: shape<CaCertificateDto>() },
  'issuance.v1.revoke-ca': { request: RevokeCaRequest, response: shape<CaCertificateDto>() },
  'issuance.v1.install-ca-certificate': {
    request: UploadCaCertificateRequest,
    response: shape<CaCertificateDto>(),
  },
  'issuance.v1.create-ca-cross-certificate': {
    request: CreateCaCrossCertificateRequest,
    response: shape<CaCrossCertificateDto>(),
  },
  'issuance.v1.list-ca-cross-certificates': {
    request: ListCaCrossCertificatesRequest,
    response: shape<Page<CaCrossCertificateDto>>(),
  },
  'issuance.v1.retire-ca-cross-certificate': {
    request: CaCrossCertificateIdRequest,
    response: shape<CaCrossCertificateDto>(),
  },
  'issuance.v1.revoke-ca-cross-certificate': {
    request: RevokeCaCrossCertificateRequest,
    response: shape<CaCrossCertificateDto>(),
  },
  'issuance.v1.ping': { request: PingRequest, response: shape<PingResponse>() },
  'deployment-dispatch.v1.ping': { request: PingRequest, response: shape<PingResponse>() },
  'revocation.v1.ping': { request: PingRequest, response: shape<PingResponse>() },
  'revocation.v1.list-revocations': { request: ListRevocationsRequest, response: shape<RevocationList>() },
  'revocation.v1.get-crl': { request: GetCrlRequest, response: shape<CrlDocument>() },
  'revocation.v1.get-ocsp-response': {
    request: GetOcspResponseRequest,
    response: shape<OcspResponseDocument>(),
  },
  'revocation.v1.answer-ocsp': { request: AnswerOcspRequest, response: shape<OcspResponseDocument>() },
  'protocol-frontends.v1.ping': { request: PingRequest, response: shape<PingResponse>() },
  'protocol-frontends.v1.acme-http': {
    request: AcmeHttpForwardRequest,
    response: shape<AcmeHttpForwardAnswer>(),
  },
  // ACME operator routes (issue 19, ADR 0060): accounts and external account binding keys.
  'protocol-frontends.v1.acme-list-accounts': {
    request: ListAcmeAccountsRequest,
    response: shape<Page<AcmeAccountDto>>(),
  },
  'protocol-frontends.v1.acme-get-account': {
    request: AcmeAccountIdRequest,
    response: shape<AcmeAccountDto>(),
  },
  'protocol-frontends.v1.acme-deactivate-account': {
    request: AcmeAccountIdRequest,
    response: shape<AcmeAccountDto>(),
  },
  'protocol-frontends.v1.acme-list-eab-keys': { request: PageQuery, response: shape<Page<AcmeEabKeyDto>>() },
  'protocol-frontends.v1.acme-create-eab-key': {
    request: CreateAcmeEabKeyRequest,
    response: shape<AcmeEabKeyCreated>(),
  },
  'protocol-frontends.v1.acme-list-profiles': {
    request: ListAcmeProfilesRequest,
    response: shape<AcmeProfileList>(),
  },
  'protocol-frontends.v1.acme-create-profile': {
    request: CreateAcmeProfileRequest,
    response: shape<AcmeProfileDto>(),
  },
  'protocol-frontends.v1.acme-update-profile': {
    request: UpdateAcmeProfileCommand,
    response: shape<AcmeProfileDto>(),
  },
  'protocol-frontends.v1.acme-delete-profile': {
    request: AcmeProfileIdRequest,
    response: shape<{ deleted: true }>(),
  },
  'protocol-frontends.v1.acme-revoke-eab-key': {
    request: AcmeEabKeyIdRequest,
    response: shape<AcmeEabKeyDto>(),
  },
  // ACME orders, validation attempts and early renewal (issue 19 points 5 and 10).
  'protocol-frontends.v1.acme-list-orders': {
    request: ListAcmeOrdersRequest,
    response: shape<Page<AcmeOrderDto>>(),
  },
  'protocol-frontends.v1.acme-get-order': {
    request: AcmeOrderIdRequest,
    response: shape<AcmeOrderDetailDto>(),
  },
  'protocol-frontends.v1.acme-list-validation-attempts': {
    request: ListAcmeValidationAttemptsRequest,
    response: shape<Page<AcmeValidationAttemptDto>>(),
  },
  'protocol-frontends.v1.acme-renew-certificate-early': {
    request: RenewAcmeCertificateEarlyCommand,
    response: shape<AcmeRenewalInfoDto>(),
  },
  'protocol-frontends.v1.acme-bulk-renew-certificates-early': {
    request: BulkRenewAcmeCertificatesEarlyRequest,
    response: shape<AcmeBulkEarlyRenewalResult>(),
  },
  // EST (issue 20, ADR 0058): the forwarded protocol requests, and the profiles.
  'protocol-frontends.v1.est-http': {
    request: EstHttpForwardRequest,
    response: shape<EstHttpForwardAnswer>(),
  },
  'protocol-frontends.v1.est-list-profiles': {
    request: ListEstProfilesRequest,
    response: shape<EstProfileList>(),
  },
  'protocol-frontends.v1.est-create-profile': {
    request: CreateEstProfileRequest,
    response: shape<EstProfileDto>(),
  },
  'protocol-frontends.v1.est-update-profile': {
    request: UpdateEstProfileCommand,
    response: shape<EstProfileDto>(),
  },
  'protocol-frontends.v1.est-delete-profile': {
    request: EstProfileIdRequest,
    response: shape<{ deleted: true }>(),
  },
  'protocol-frontends.v1.est-reload-trust': {
    request: ReloadEstTrustRequest,
    response: shape<EstTrustReloadResult>(),
  },
  // EST serverkeygen key-encryption keys (RFC 7030 4.4.1.1; ADR 0058 amendment).
  'protocol-frontends.v1.est-list-key-encryption-keys': {
    request: ListEstKeyEncryptionKeysRequest,
    response: shape<Page<EstKeyEncryptionKeyDto>>(),
  },
  'protocol-frontends.v1.est-create-key-encryption-key': {
    request: CreateEstKeyEncryptionKeyRequest,
    response: shape<EstKeyEncryptionKeyCreated>(),
  },
  'protocol-frontends.v1.est-revoke-key-encryption-key': {
    request: EstKeyEncryptionKeyIdRequest,
    response: shape<EstKeyEncryptionKeyDto>(),
  },
  // SCEP (issue 21, ADR 0059): the forwarded protocol requests, the profiles and MDM trust.
  'protocol-frontends.v1.scep-http': {
    request: ScepHttpForwardRequest,
    response: shape<ScepHttpForwardAnswer>(),
  },
  'protocol-frontends.v1.scep-list-profiles': {
    request: ListScepProfilesRequest,
    response: shape<ScepProfileList>(),
  },
  'protocol-frontends.v1.scep-create-profile': {
    request: CreateScepProfileRequest,
    response: shape<ScepProfileDto>(),
  },
  'protocol-frontends.v1.scep-update-profile': {
    request: UpdateScepProfileCommand,
    response: shape<ScepProfileDto>(),
  },
  'protocol-frontends.v1.scep-delete-profile': {
    request: ScepProfileIdRequest,
    response: shape<{ deleted: true }>(),
  },
  'protocol-frontends.v1.scep-rotate-ra': {
    request: ScepProfileIdRequest,
    response: shape<ScepProfileDto>(),
  },
  'protocol-frontends.v1.scep-mdm-stats': {
    request: ScepMdmStatsRequest,
    response: shape<ScepMdmStats>(),
  },
  'protocol-frontends.v1.scep-mdm-reload-trust': {
    request: ReloadScepMdmTrustRequest,
    response: shape<ScepMdmTrustReloadResult>(),
  },
  'notifier.v1.ping': { request: PingRequest, response: shape<PingResponse>() },
  'notifier.v1.list-notifications': {
    request: ListNotificationsRequest,
    response: shape<Page<NotificationDto>>(),
  },
  'notifier.v1.get-notification': { request: NotificationIdRequest, response: shape<NotificationDto>() },
  'notifier.v1.mark-notification-read': {
    request: NotificationIdRequest,
    response: shape<NotificationDto>(),
  },
  'notifier.v1.requeue-notification': { request: NotificationIdRequest, response: shape<NotificationDto>() },
  'notifier.v1.list-notifiers': { request: PageQuery, response: shape<Page<NotifierDto>>() },
  'notifier.v1.get-notifier': { request: NotifierIdRequest, response: shape<NotifierDto>() },
  'notifier.v1.create-notifier': { request: CreateNotifierRequest, response: shape<NotifierDto>() },
  'notifier.v1.update-notifier': { request: UpdateNotifierRequest, response: shape<NotifierDto>() },
  'notifier.v1.delete-notifier': { request: NotifierIdRequest, response: shape<{ id: string }>() },
  'notifier.v1.list-routing-rules': { request: PageQuery, response: shape<Page<RoutingRuleDto>>() },
  'notifier.v1.get-routing-rule': { request: RoutingRuleIdRequest, response: shape<RoutingRuleDto>() },
  'notifier.v1.create-routing-rule': { request: CreateRoutingRuleRequest, response: shape<RoutingRuleDto>() },
  'notifier.v1.update-routing-rule': { request: UpdateRoutingRuleRequest, response: shape<RoutingRuleDto>() },
  'notifier.v1.delete-routing-rule': { request: RoutingRuleIdRequest, response: shape<{ id: string }>() },
  'notifier.v1.list-contacts': { request: PageQuery, response: shape<Page<ContactDto>>() },
  'notifier.v1.get-contact': { request: ContactKeyRequest, response: shape<ContactDto>() },
  'notifier.v1.set-contact': { request: SetContactRequest, response: shape<ContactDto>() },
  'notifier.v1.delete-contact': { request: ContactKeyRequest, response: shape<{ subject_id: string }>() },
  'notifier.v1.test-notifier': { request: NotifierIdRequest, response: shape<NotifierTestResult>() },
  'notifier.v1.preview-digest': { request: DigestPreviewRequest, response: shape<DigestPreviewDto>() },
  'notifier.v1.send-digest': { request: DigestPreviewRequest, response: shape<DigestSendResult>() },
  'health-monitor.v1.ping': { request: PingRequest, response: shape<PingResponse>() },
  ...healthCheckRequestContracts,
  ...scepProbeRequestContracts,
  ...discoveredCertificateRequestContracts,
  ...scanTargetRequestContracts,
} satisfies Record<string, RequestContract<object, unknown>>;

/** Durable events: `<service>.v1.<entity>.<past-verb>`, carried by JetStream. */
export const eventContracts = {
  ...certificateEventContracts,
  ...agentEventContracts,
  ...profileEventContracts,
  ...policyEventContracts,
  ...healthCheckEventContracts,
  ...discoveredCertificateEventContracts,
  'issuance.v1.renewal-policy.created': { payload: shape<RenewalPolicyDto>() },
  'issuance.v1.renewal-policy.updated': { payload: shape<RenewalPolicyDto>() },
  'issuance.v1.renewal-policy.deleted': { payload: shape<RenewalPolicyDeleted>() },
  'issuance.v1.certificate.issued': { payload: shape<CertificateIssued>() },
  'issuance.v1.certificate.revoked': { payload: shape<CertificateRevoked>() },
  'issuance.v1.ca.revoked': { payload: shape<CaRevoked>() },
  'issuance.v1.ca.expiry-warning': { payload: shape<CaExpiryWarning>() },
  'auth.v1.api-key.revoked': { payload: shape<ApiKeyRevoked>() },
  'auth.v1.bootstrap.consumed': { payload: shape<BootstrapConsumed>() },
  'auth.v1.grants.changed': { payload: shape<GrantsChanged>() },
  'auth.v1.session.revoked': { payload: shape<SessionRevoked>() },
  'api-gateway.v1.audit.recorded': { payload: shape<AuditRecord>() },
  'auth.v1.audit.recorded': { payload: shape<AuditRecord>() },
  'issuance.v1.audit.recorded': { payload: shape<AuditRecord>() },
  'deployment-dispatch.v1.audit.recorded': { payload: shape<AuditRecord>() },
  'revocation.v1.audit.recorded': { payload: shape<AuditRecord>() },
  'protocol-frontends.v1.audit.recorded': { payload: shape<AuditRecord>() },
  'notifier.v1.audit.recorded': { payload: shape<AuditRecord>() },
  'health-monitor.v1.audit.recorded': { payload: shape<AuditRecord>() },
} satisfies Record<string, EventContract<unknown>>;

export type RequestSubject = keyof typeof requestContracts;
export type EventSubject = keyof typeof eventContracts;
export type RequestOf<S extends RequestSubject> = InstanceType<(typeof requestContracts)[S]['request']>;
export type ResponseOf<S extends RequestSubject> = NonNullable<
  (typeof requestContracts)[S]['response']['__shape']
>;
export type EventOf<E extends EventSubject> = NonNullable<(typeof eventContracts)[E]['payload']['__shape']>;

/** The subject on which a service publishes its audit records (spec 6.1). */
export type AuditSubject = `${ServiceName}.v1.audit.recorded`;
export const auditSubject = (service: ServiceName): AuditSubject => `${service}.v1.audit.recorded`;

export type PingSubject = `${Exclude<ServiceName, 'api-gateway'>}.v1.ping`;
export const pingSubject = (service: Exclude<ServiceName, 'api-gateway'>): PingSubject =>
  `${service}.v1.ping`;

/** The service that owns a subject: its first dot-separated segment. */
export function owningService(subject: string): string {
  return subject.slice(0, subject.indexOf('.'));
}
