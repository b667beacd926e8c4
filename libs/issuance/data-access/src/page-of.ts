import { Page, ResolvedPage } from '@certlane/contracts';

/** One page of a list answer: its items, the total count and where the page is. */
export function pageOf<T>(data: T[], total: number, page: ResolvedPage): Page<T> {
  return { data, total, page: page.page, per_page: page.per_page };
}
