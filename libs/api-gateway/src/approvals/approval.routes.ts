import { DecideApprovalBody, ListApprovalsRequest } from '@certlane/contracts';
import { declareRoute } from '../routes/route-declaration';

const BASE = '/api/v1/approvals';

/** /api/v1/approvals (spec 2.10, section 3; ADR 0025): served by the issuance service. */
export const APPROVAL_ROUTES = [
  declareRoute({
    method: 'GET',
    path: BASE,
    permission: 'approval.read',
    status: 200,
    errors: [400, 401, 403],
    subject: 'issuance.v1.list-approvals',
    query: ListApprovalsRequest,
    response: 'Page<ApprovalDto>',
    audit: null,
    payload: ({ query }) => query,
  }),
  declareRoute({
    method: 'GET',
    path: `${BASE}/:id`,
    permission: 'approval.read',
    status: 200,
    errors: [401, 403, 404],
    subject: 'issuance.v1.get-approval',
    response: 'ApprovalDto',
    audit: null,
    payload: ({ params }) => ({ id: params.id }),
  }),
  /** 403 approval_self_decision for the requester; 409 approval_not_pending once decided. */
  declareRoute({
    method: 'POST',
    path: `${BASE}/:id/approve`,
    permission: 'approval.decide',
    status: 200,
    errors: [400, 401, 403, 404, 409],
    subject: 'issuance.v1.approve-approval',
    body: DecideApprovalBody,
    optionalBody: true,
    response: 'ApprovalDto',
    audit: 'approval.approved',
    payload: ({ params, body }) => ({
      id: params.id,
      ...(body.reason !== undefined ? { reason: body.reason } : {}),
    }),
  }),
  declareRoute({
    method: 'POST',
    path: `${BASE}/:id/reject`,
    permission: 'approval.decide',
    status: 200,
    errors: [400, 401, 403, 404, 409],
    subject: 'issuance.v1.reject-approval',
    body: DecideApprovalBody,
    optionalBody: true,
    response: 'ApprovalDto',
    audit: 'approval.rejected',
    payload: ({ params, body }) => ({
      id: params.id,
      ...(body.reason !== undefined ? { reason: body.reason } : {}),
    }),
  }),
];
