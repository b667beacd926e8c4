import { DigestPreviewRequest } from '@certlane/contracts';
import { declareRoute } from '../routes/route-declaration';

const BASE = '/api/v1/digest';

/** /api/v1/digest (spec 4.12 "digest preview and send", ADR 0062): served by the notifier. */
export const DIGEST_ROUTES = [
  declareRoute({
    method: 'GET',
    path: `${BASE}/preview`,
    permission: 'digest.read',
    status: 200,
    errors: [400, 401, 403],
    subject: 'notifier.v1.preview-digest',
    query: DigestPreviewRequest,
    response: 'DigestPreviewDto',
    audit: null,
    payload: ({ query }) => query,
  }),
  declareRoute({
    method: 'POST',
    path: `${BASE}/send`,
    permission: 'digest.send',
    status: 200,
    errors: [400, 401, 403],
    subject: 'notifier.v1.send-digest',
    body: DigestPreviewRequest,
    response: 'DigestSendResult',
    audit: 'digest.sent',
    payload: ({ body }) => body,
  }),
];
