import { BootstrapRequest } from '@certlane/contracts';
import { declareRoute } from '../routes/route-declaration';

/** Day-0 bootstrap (spec 4.10, 5.6): unauthenticated by design; the token is the credential. */
export const BOOTSTRAP_ROUTES = [
  declareRoute({
    method: 'GET',
    path: '/api/v1/auth/bootstrap',
    public: true,
    status: 200,
    errors: [],
    subject: 'auth.v1.get-bootstrap-status',
    response: 'BootstrapStatus',
    audit: null,
    payload: () => ({}),
  }),
  declareRoute({
    method: 'POST',
    path: '/api/v1/auth/bootstrap',
    public: true,
    status: 201,
    errors: [400, 401, 410, 413],
    subject: 'auth.v1.bootstrap',
    body: BootstrapRequest,
    response: 'BootstrapResponse',
    audit: 'bootstrap.consume',
    payload: ({ body }) => body,
  }),
];
