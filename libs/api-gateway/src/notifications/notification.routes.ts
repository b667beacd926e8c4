import { ListNotificationsRequest } from '@certlane/contracts';
import { declareRoute } from '../routes/route-declaration';

const BASE = '/api/v1/notifications';

/** /api/v1/notifications (spec 4.8; list, get and mark-read are ours, ADR 0056): served by the notifier. */
export const NOTIFICATION_ROUTES = [
  declareRoute({
    method: 'GET',
    path: BASE,
    permission: 'notification.read',
    status: 200,
    errors: [400, 401, 403],
    subject: 'notifier.v1.list-notifications',
    query: ListNotificationsRequest,
    response: 'Page<NotificationDto>',
    audit: null,
    payload: ({ query }) => query,
  }),
  declareRoute({
    method: 'GET',
    path: `${BASE}/:id`,
    permission: 'notification.read',
    status: 200,
    errors: [400, 401, 403, 404],
    subject: 'notifier.v1.get-notification',
    response: 'NotificationDto',
    audit: null,
    payload: ({ params }) => ({ id: params.id }),
  }),
  declareRoute({
    method: 'POST',
    path: `${BASE}/:id/read`,
    permission: 'notification.read',
    status: 200,
    errors: [400, 401, 403, 404, 409],
    subject: 'notifier.v1.mark-notification-read',
    response: 'NotificationDto',
    audit: 'notification.read',
    payload: ({ params }) => ({ id: params.id }),
  }),
  declareRoute({
    method: 'POST',
    path: `${BASE}/:id/requeue`,
    permission: 'notification.requeue',
    status: 200,
    errors: [400, 401, 403, 404, 409],
    subject: 'notifier.v1.requeue-notification',
    response: 'NotificationDto',
    audit: 'notification.requeued',
    payload: ({ params }) => ({ id: params.id }),
  }),
];
