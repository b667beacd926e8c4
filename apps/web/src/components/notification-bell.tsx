import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api, unwrap } from '../api/client';

/** How often the bell asks for the unread count. */
const BELL_INTERVAL_MS = 30_000;

/**
 * The unread notifications (delivered, not yet marked read) as a count in the header, linking to
 * them. Hidden for a caller who may not read notifications; the notification page's own actions
 * invalidate it (its query key starts with the list's path).
 */
export function NotificationBell() {
  const unread = useQuery({
    queryKey: ['/api/v1/notifications', 'unread'],
    queryFn: () =>
      unwrap(api.GET('/api/v1/notifications', { params: { query: { status: 'sent', per_page: 1 } } })),
    refetchInterval: BELL_INTERVAL_MS,
    retry: false,
  });
  if (!unread.data) return null;
  const count = unread.data.total;
  return (
    <Link
      to="/notifications?status=sent"
      className={count > 0 ? 'bell bell-unread' : 'bell'}
      data-testid="notification-bell"
      aria-label={`Notifications: ${count} unread`}
    >
      <svg aria-hidden="true" className="bell-icon" viewBox="0 0 16 16" width="14" height="14">
        <path d="M8 1.5a4.5 4.5 0 0 0-4.5 4.5v3L2 11.5v1h12v-1L12.5 9V6A4.5 4.5 0 0 0 8 1.5zM6.3 13.5a1.8 1.8 0 0 0 3.4 0z" />
      </svg>{' '}
      <span className="bell-count">{count}</span>
    </Link>
  );
}
