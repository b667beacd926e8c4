/**
 * The expiry-warning sweep's keyset position: the last row's `expires_at` exactly as Postgres
 * keeps it (microseconds, as fixed-width UTC text `YYYY-MM-DDTHH:MM:SS.ffffffZ`) and its id. A
 * JavaScript Date keeps milliseconds only, so a cursor passed through one would sit before rows
 * sharing a sub-millisecond expiry and the sweep would read the same batch forever.
 */
export interface AlertCursor {
  expires_at: string;
  id: string;
}

/** Fixed-width UTC text with microseconds, ordered like the timestamps themselves. */
export const ALERT_CURSOR_TIME_FORMAT = `YYYY-MM-DD"T"HH24:MI:SS.US"Z"`;

/** (expires_at, id) order, as the sweep's ORDER BY. */
export function compareAlertCursors(a: AlertCursor, b: AlertCursor): number {
  if (a.expires_at !== b.expires_at) return a.expires_at < b.expires_at ? -1 : 1;
  if (a.id === b.id) return 0;
  return a.id < b.id ? -1 : 1;
}

/**
 * The cursor after a full batch whose last row is `last`; refuses (throws) a cursor that does not
 * move past `previous`, because reading on from it would repeat the batch without end.
 */
export function advanceAlertCursor(previous: AlertCursor | null, last: AlertCursor): AlertCursor {
  if (previous !== null && compareAlertCursors(last, previous) <= 0)
    throw new Error(
      `expiry-warning cursor did not advance: (${last.expires_at}, ${last.id}) after (${previous.expires_at}, ${previous.id})`,
    );
  return last;
}
