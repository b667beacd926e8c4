import { ContactChanges, ContactKindValue, PageQuery } from '@certlane/contracts';
import { declareRoute } from '../routes/route-declaration';

const BASE = '/api/v1/contacts';

/** /api/v1/contacts (issue 22, ADR 0056): owner and team contact addresses, served by the notifier. */
export const CONTACT_ROUTES = [
  declareRoute({
    method: 'GET',
    path: BASE,
    permission: 'contact.read',
    status: 200,
    errors: [400, 401, 403],
    subject: 'notifier.v1.list-contacts',
    query: PageQuery,
    response: 'Page<ContactDto>',
    audit: null,
    payload: ({ query }) => query,
  }),
  declareRoute({
    method: 'GET',
    path: `${BASE}/:kind/:subject_id`,
    permission: 'contact.read',
    status: 200,
    errors: [400, 401, 403, 404],
    subject: 'notifier.v1.get-contact',
    response: 'ContactDto',
    audit: null,
    payload: ({ params }) => ({ kind: params.kind as ContactKindValue, subject_id: params.subject_id }),
  }),
  declareRoute({
    method: 'PUT',
    path: `${BASE}/:kind/:subject_id`,
    permission: 'contact.edit',
    status: 200,
    errors: [400, 401, 403, 413],
    subject: 'notifier.v1.set-contact',
    body: ContactChanges,
    response: 'ContactDto',
    audit: 'contact.set',
    payload: ({ params, body }) => ({
      ...body,
      kind: params.kind as ContactKindValue,
      subject_id: params.subject_id,
    }),
  }),
  declareRoute({
    method: 'DELETE',
    path: `${BASE}/:kind/:subject_id`,
    permission: 'contact.edit',
    status: 204,
    errors: [400, 401, 403, 404],
    subject: 'notifier.v1.delete-contact',
    response: null,
    audit: 'contact.deleted',
    payload: ({ params }) => ({ kind: params.kind as ContactKindValue, subject_id: params.subject_id }),
  }),
];
