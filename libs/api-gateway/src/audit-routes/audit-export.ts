import {
  AUDIT_EXPORT_PAGE_MAX,
  AuditExportPage,
  AuditExportPlan,
  ExportAuditPageRequest,
} from '@certlane/contracts';
import type { ServerResponse } from 'node:http';
import { ndjsonLines, writeWithBackpressure } from './ndjson-writer';

/** Events the gateway asks the auth service for at a time. */
export const EXPORT_PAGE_SIZE = Math.min(500, AUDIT_EXPORT_PAGE_MAX);

export type FetchExportPage = (request: ExportAuditPageRequest) => Promise<AuditExportPage>;

/**
 * Streams an export as NDJSON without holding it: keyset pages of at most 500 events are pulled
 * from the auth service, one ahead of the page being written, and each page is written only
 * when the response has drained, so memory stays at about two pages whatever the size of the
 * export. The first page is fetched before the status line, so a failing auth service still
 * gets a proper error response; a failure later can only cut the stream (the response is
 * destroyed, the client sees an incomplete chunked body). Ends at the limit or the end of the
 * window, or as soon as the client goes away.
 */
export async function streamAuditExport(
  plan: AuditExportPlan,
  fetchPage: FetchExportPage,
  response: ServerResponse,
): Promise<number> {
  const base: ExportAuditPageRequest = {
    from: plan.from.toISOString(),
    to: plan.to.toISOString(),
    ...(plan.categories.length > 0 ? { categories: plan.categories } : {}),
    limit: Math.min(EXPORT_PAGE_SIZE, plan.limit),
  };
  let remaining = plan.limit;
  let pending: Promise<AuditExportPage> | undefined = fetchPage(base);
  const first = await pending;
  response.statusCode = 200;
  response.setHeader('Content-Type', 'application/x-ndjson; charset=utf-8');
  response.setHeader('Cache-Control', 'no-store');
  response.flushHeaders();
  let page: AuditExportPage | undefined = first;
  let written = 0;
  while (page) {
    const events = page.data.length > remaining ? page.data.slice(0, remaining) : page.data;
    remaining -= events.length;
    // Ask for the next page now, so the bus round trip overlaps with the client's reading.
    pending =
      page.next && remaining > 0
        ? fetchPage({ ...base, ...page.next, limit: Math.min(EXPORT_PAGE_SIZE, remaining) })
        : undefined;
    pending?.catch(() => undefined);
    if (events.length > 0 && !(await writeWithBackpressure(response, ndjsonLines(events)))) return written;
    written += events.length;
    page = pending ? await pending : undefined;
  }
  response.end();
  return written;
}
