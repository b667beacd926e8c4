import {
  acmeEarlyRenewalCriteria,
  BulkRenewAcmeCertificatesEarlyRequest,
  ListAcmeOrdersRequest,
  ListAcmeValidationAttemptsRequest,
  RenewAcmeCertificateEarlyRequest,
} from '@certlane/contracts';
import { BULK_REQUEST_TIMEOUT_MS } from '../bulk/bulk.routes';
import { declareRoute } from '../routes/route-declaration';

const BASE = '/api/v1/admin/acme';

/**
 * ACME orders and validation attempts for operators (issue 19 point 10), admins only like the
 * accounts (ADR 0060), and early renewal (RFC 9773 4.2, point 5) of one certificate or of every
 * certificate of an account or profile, which is a certificate renewal decision:
 * `certificate.renew`. Served by protocol-frontends. The bulk path is a literal sibling of the
 * `{id}` routes, so it is never read as a certificate id.
 */
export const ACME_OPERATIONS_ROUTES = [
  declareRoute({
    method: 'GET',
    path: `${BASE}/orders`,
    adminOnly: true,
    status: 200,
    errors: [400, 401, 403],
    subject: 'protocol-frontends.v1.acme-list-orders',
    summary: 'ACME orders, newest first; filters account_id, status (as stored) and identifier',
    query: ListAcmeOrdersRequest,
    response: 'Page<AcmeOrderDto>',
    audit: null,
    payload: ({ query }) => query,
  }),
  declareRoute({
    method: 'GET',
    path: `${BASE}/orders/:id`,
    adminOnly: true,
    status: 200,
    errors: [400, 401, 403, 404],
    subject: 'protocol-frontends.v1.acme-get-order',
    summary: 'An ACME order with its authorizations and challenges',
    response: 'AcmeOrderDetailDto',
    audit: null,
    payload: ({ params }) => ({ id: params.id }),
  }),
  declareRoute({
    method: 'GET',
    path: `${BASE}/validation-attempts`,
    adminOnly: true,
    status: 200,
    errors: [400, 401, 403],
    subject: 'protocol-frontends.v1.acme-list-validation-attempts',
    summary: 'Challenge validation attempts (retried and final), newest first',
    query: ListAcmeValidationAttemptsRequest,
    response: 'Page<AcmeValidationAttemptDto>',
    audit: null,
    payload: ({ query }) => query,
  }),
  declareRoute({
    method: 'POST',
    path: `${BASE}/certificates/:id/renew-early`,
    permission: 'certificate.renew',
    status: 200,
    errors: [400, 401, 403, 404, 409],
    subject: 'protocol-frontends.v1.acme-renew-certificate-early',
    summary:
      "Moves an ACME certificate's suggested renewal window to now (RFC 9773 4.2), with an optional explanation_url; the id is the certificate_id of an ACME order or the inventory id of a certificate an ACME order issued",
    optionalBody: true,
    body: RenewAcmeCertificateEarlyRequest,
    response: 'AcmeRenewalInfoDto',
    audit: 'acme.certificate_renew_early',
    payload: ({ params, body }) => ({ ...body, id: params.id }),
  }),
  declareRoute({
    method: 'POST',
    path: `${BASE}/certificates/bulk-renew-early`,
    permission: 'certificate.renew',
    status: 200,
    errors: [400, 401, 403, 404],
    subject: 'protocol-frontends.v1.acme-bulk-renew-certificates-early',
    summary:
      'Moves to now (RFC 9773 4.2) the suggested renewal window of every live certificate of one ACME account (account_id) or one ACME profile (acme_profile_id)',
    body: BulkRenewAcmeCertificatesEarlyRequest,
    response: 'AcmeBulkEarlyRenewalResult',
    audit: 'acme.certificate_bulk_renew_early',
    // One statement over up to 100,000 certificates: the bulk routes' patience.
    timeoutMs: BULK_REQUEST_TIMEOUT_MS,
    check: ({ body }) => void acmeEarlyRenewalCriteria(body),
    payload: ({ body }) => body,
  }),
];
