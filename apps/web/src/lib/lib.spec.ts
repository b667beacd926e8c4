import { isStateChanging, readCookie } from './cookies';
import { apiQuery, lastPage, listSearch, parseListParams } from './list-params';
import { expiryLevel, relativeTime } from './time';

describe('readCookie', () => {
  it('finds the CSRF cookie among others and ignores empty values', () => {
    expect(readCookie('a=1; service_csrf=abc%3D; b=2', 'service_csrf')).toBe('abc=');
    expect(readCookie('service_csrf_x=1', 'service_csrf')).toBeUndefined();
    expect(readCookie('service_csrf=', 'service_csrf')).toBeUndefined();
    expect(readCookie('', 'service_csrf')).toBeUndefined();
  });

  it('treats exactly the spec 5.4 methods as state-changing', () => {
    expect(['POST', 'put', 'PATCH', 'DELETE'].every(isStateChanging)).toBe(true);
    expect(['GET', 'HEAD', 'OPTIONS'].some(isStateChanging)).toBe(false);
  });
});

describe('list params in the URL', () => {
  it('round-trips page, page size and filters', () => {
    const params = { page: 3, perPage: 50, filters: { status: 'Expiring', team_id: 't1' } };
    const search = listSearch(params);
    expect(search.toString()).toBe('status=Expiring&team_id=t1&page=3&per_page=50');
    expect(parseListParams(search, ['status', 'team_id'])).toEqual(params);
    expect(apiQuery(params)).toEqual({ status: 'Expiring', team_id: 't1', page: 3, per_page: 50 });
  });

  it('drops what the API would refuse: unknown filters, bad pages, odd page sizes', () => {
    const parsed = parseListParams(new URLSearchParams('page=-2&per_page=7&evil=1&status='), ['status']);
    expect(parsed).toEqual({ page: 1, perPage: 25, filters: {} });
    expect(listSearch(parsed).toString()).toBe('');
  });

  it('has at least one page', () => {
    expect(lastPage(0, 25)).toBe(1);
    expect(lastPage(26, 25)).toBe(2);
  });
});

describe('time', () => {
  const now = Date.parse('2026-11-24T12:00:00Z');
  it('says how far a time is in its largest unit', () => {
    expect(relativeTime('2026-11-27T12:00:00Z', now)).toBe('in 3 days');
    expect(relativeTime('2026-11-24T10:00:00Z', now)).toBe('2 hours ago');
    expect(relativeTime('2026-11-24T12:00:20Z', now)).toBe('now');
  });

  it('grades expiry at 0, 7 and 30 days', () => {
    expect(expiryLevel(null, now)).toBe('none');
    expect(expiryLevel('2026-11-24T11:00:00Z', now)).toBe('expired');
    expect(expiryLevel('2026-11-30T12:00:00Z', now)).toBe('critical');
    expect(expiryLevel('2026-12-20T12:00:00Z', now)).toBe('warning');
    expect(expiryLevel('2027-02-01T12:00:00Z', now)).toBe('ok');
  });
});
