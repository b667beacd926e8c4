import { ListRevocationsRequest } from '@certlane/contracts';
import { declareRoute } from '../routes/route-declaration';

/**
 * The JSON revocation list (spec 4.4), served by the revocation service; reading revocation
 * status needs `certificate.read`. The DER CRL and OCSP answers are files: RevocationController's.
 */
export const REVOCATION_ROUTES = [
  declareRoute({
    method: 'GET',
    path: '/api/v1/crl',
    permission: 'certificate.read',
    status: 200,
    errors: [400, 401, 403, 404, 501],
    subject: 'revocation.v1.list-revocations',
    query: ListRevocationsRequest,
    response: 'RevocationList',
    audit: null,
    payload: ({ query }) => query,
  }),
];
