import { EventContract, RequestContract, shape } from '../messaging/contract';
import { Page } from '../pagination/page';
import {
  ApprovalDto,
  ApprovalEvent,
  ApprovalIdRequest,
  DecideApprovalRequest,
  EnrollmentApprovalOutcome,
  ListApprovalsRequest,
  RequestEnrollmentApprovalRequest,
} from '../approvals/approval.dto';
import {
  CreateProfileRequest,
  ListProfilesRequest,
  ProfileDeleted,
  ProfileDto,
  ProfileIdRequest,
  ProfileUpdateResult,
  UpdateProfileRequest,
} from './profile.dto';

/** Certificate profiles and approval requests: served by issuance (ADR 0025). */
export const profileRequestContracts = {
  'issuance.v1.list-profiles': { request: ListProfilesRequest, response: shape<Page<ProfileDto>>() },
  'issuance.v1.get-profile': { request: ProfileIdRequest, response: shape<ProfileDto>() },
  'issuance.v1.create-profile': { request: CreateProfileRequest, response: shape<ProfileDto>() },
  'issuance.v1.update-profile': { request: UpdateProfileRequest, response: shape<ProfileUpdateResult>() },
  'issuance.v1.delete-profile': { request: ProfileIdRequest, response: shape<ProfileDeleted>() },
  'issuance.v1.list-approvals': { request: ListApprovalsRequest, response: shape<Page<ApprovalDto>>() },
  'issuance.v1.get-approval': { request: ApprovalIdRequest, response: shape<ApprovalDto>() },
  'issuance.v1.approve-approval': { request: DecideApprovalRequest, response: shape<ApprovalDto>() },
  'issuance.v1.reject-approval': { request: DecideApprovalRequest, response: shape<ApprovalDto>() },
  'issuance.v1.request-enrollment-approval': {
    request: RequestEnrollmentApprovalRequest,
    response: shape<ApprovalDto>(),
  },
  'issuance.v1.get-enrollment-approval': {
    request: ApprovalIdRequest,
    response: shape<EnrollmentApprovalOutcome>(),
  },
} satisfies Record<string, RequestContract<object, unknown>>;

export const profileEventContracts = {
  'issuance.v1.profile.created': { payload: shape<ProfileDto>() },
  'issuance.v1.profile.updated': { payload: shape<ProfileDto>() },
  'issuance.v1.profile.deleted': { payload: shape<ProfileDeleted>() },
  'issuance.v1.approval.requested': { payload: shape<ApprovalEvent>() },
  'issuance.v1.approval.decided': { payload: shape<ApprovalEvent>() },
} satisfies Record<string, EventContract<unknown>>;
