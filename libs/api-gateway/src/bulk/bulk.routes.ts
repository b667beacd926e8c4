import { BulkReassignRequest, BulkRenewRequest, BulkRevokeRequest } from '@certlane/contracts';
import { declareRoute } from '../routes/route-declaration';

/**
 * How long the gateway waits for a bulk call: it walks up to 100,000 certificates in batches
 * (bench/bulk), far longer than an ordinary request (SERVICE_BUS_REQUEST_TIMEOUT).
 */
export const BULK_REQUEST_TIMEOUT_MS = 5 * 60_000;

/**
 * POST /api/v1/certificates/bulk-revoke, /bulk-renew and /bulk-reassign (spec 4.2, 4.3; ADR
 * 0024), and the EST bulk revoke (admin only; the service forces source EST). They honour
 * Idempotency-Key (ADR 0045). Listed before the certificate routes, so a literal path is never
 * read as a certificate id.
 */
export const BULK_ROUTES = [
  declareRoute({
    method: 'POST',
    path: '/api/v1/certificates/bulk-revoke',
    permission: 'certificate.revoke',
    status: 200,
    errors: [400, 401, 403, 409, 413, 422],
    subject: 'issuance.v1.bulk-revoke-certificates',
    body: BulkRevokeRequest,
    response: 'BulkRevokeResult',
    audit: 'certificate.bulk_revoked',
    timeoutMs: BULK_REQUEST_TIMEOUT_MS,
    idempotent: true,
    payload: ({ body }) => body,
  }),
  declareRoute({
    method: 'POST',
    path: '/api/v1/certificates/bulk-renew',
    permission: 'certificate.renew',
    status: 200,
    errors: [400, 401, 403, 409, 413, 422],
    subject: 'issuance.v1.bulk-renew-certificates',
    body: BulkRenewRequest,
    response: 'BulkRenewResult',
    audit: 'certificate.bulk_renewed',
    timeoutMs: BULK_REQUEST_TIMEOUT_MS,
    idempotent: true,
    payload: ({ body }) => body,
  }),
  declareRoute({
    method: 'POST',
    path: '/api/v1/certificates/bulk-reassign',
    permission: 'certificate.edit',
    status: 200,
    errors: [400, 401, 403, 409, 413, 422],
    subject: 'issuance.v1.bulk-reassign-certificates',
    body: BulkReassignRequest,
    response: 'BulkReassignResult',
    audit: 'certificate.bulk_reassigned',
    timeoutMs: BULK_REQUEST_TIMEOUT_MS,
    idempotent: true,
    payload: ({ body }) => body,
  }),
  declareRoute({
    method: 'POST',
    path: '/api/v1/est/certificates/bulk-revoke',
    adminOnly: true,
    status: 200,
    errors: [400, 401, 403, 409, 413, 422],
    subject: 'issuance.v1.est-bulk-revoke-certificates',
    body: BulkRevokeRequest,
    response: 'BulkRevokeResult',
    audit: 'est_bulk_revoke',
    timeoutMs: BULK_REQUEST_TIMEOUT_MS,
    idempotent: true,
    payload: ({ body }) => body,
  }),
];
