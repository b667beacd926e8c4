import { ListCertificatesRequest } from '@certlane/contracts';
import { declareRoute } from '../routes/route-declaration';

/**
 * The inventory list (spec 4.2, ADR 0024). Its page arrives as JSON text built by Postgres (ADR
 * 0034) and is written as it came, like every declared route's reply.
 */
export const CERTIFICATE_ROUTES = [
  declareRoute({
    method: 'GET',
    path: '/api/v1/certificates',
    permission: 'certificate.read',
    status: 200,
    errors: [400, 401, 403],
    subject: 'issuance.v1.list-certificates',
    query: ListCertificatesRequest,
    response: 'Page<CertificateDto>',
    audit: null,
    payload: ({ query }) => query,
  }),
];
