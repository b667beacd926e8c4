import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import {
  digitsToNumber,
  PAGE_DEFAULT,
  PAGE_MAX,
  PageQuery,
  PER_PAGE_DEFAULT,
  PER_PAGE_MAX,
  resolvePage,
} from './page';

/** What validation of a query string does: transform the raw text, then check the rules. */
async function check(raw: Record<string, unknown>): Promise<{ value: PageQuery; messages: string[] }> {
  const value = plainToInstance(PageQuery, raw);
  const errors = await validate(value);
  return { value, messages: errors.flatMap((e) => Object.values(e.constraints ?? {})) };
}

describe(resolvePage.name, () => {
  it('defaults to page 1 of 50 at offset 0', () => {
    expect(resolvePage({})).toEqual({ page: 1, per_page: 50, offset: 0 });
    expect([PAGE_DEFAULT, PER_PAGE_DEFAULT, PER_PAGE_MAX]).toEqual([1, 50, 500]);
  });

  it.each<[PageQuery, number]>([
    [{ page: 1, per_page: 10 }, 0],
    [{ page: 2, per_page: 10 }, 10],
    [{ page: 3, per_page: 20 }, 40],
    [{ page: 7 }, 300],
    [{ per_page: 500 }, 0],
    [{ page: 1000, per_page: 500 }, 499_500],
    [{ page: PAGE_MAX, per_page: PER_PAGE_MAX }, 499_999_999_500],
  ])('resolves %j to offset %d', (query, offset) => {
    const resolved = resolvePage(query);
    expect(resolved).toEqual({
      page: query.page ?? 1,
      per_page: query.per_page ?? 50,
      offset,
    });
  });
});

describe(digitsToNumber.name, () => {
  it('turns plain decimal digits into a number and leaves everything else as it is', () => {
    expect(digitsToNumber({ value: '42' })).toBe(42);
    expect(digitsToNumber({ value: '007' })).toBe(7);
    expect(digitsToNumber({ value: 42 })).toBe(42);
    expect(digitsToNumber({ value: '999999999999999' })).toBe(999_999_999_999_999);
    for (const raw of ['', '-1', '1.5', '1e3', ' 2', '0x10', 'abc', '1234567890123456']) {
      expect(digitsToNumber({ value: raw })).toBe(raw);
    }
  });
});

describe(PageQuery.name, () => {
  it('accepts an empty query', async () => {
    expect((await check({})).messages).toEqual([]);
  });

  it('turns query-string digits into numbers', async () => {
    const { value, messages } = await check({ page: '3', per_page: '25' });
    expect(messages).toEqual([]);
    expect(value).toEqual(Object.assign(new PageQuery(), { page: 3, per_page: 25 }));
    expect(resolvePage(value)).toEqual({ page: 3, per_page: 25, offset: 50 });
  });

  it('keeps every accepted page within safe-integer offsets', () => {
    expect(Number.isSafeInteger(resolvePage({ page: PAGE_MAX, per_page: PER_PAGE_MAX }).offset)).toBe(true);
  });

  it('accepts the bounds page 1000000000, per_page 1 and 500, and numbers from a JSON bus payload', async () => {
    expect((await check({ page: String(PAGE_MAX) })).messages).toEqual([]);
    expect((await check({ per_page: '1' })).messages).toEqual([]);
    expect((await check({ per_page: '500' })).messages).toEqual([]);
    expect((await check({ page: 2, per_page: 500 })).messages).toEqual([]);
  });

  it.each([
    [{ page: '0' }, 'page must be at least 1'],
    [{ page: '-1' }, 'page must be an integer'],
    [{ page: 'abc' }, 'page must be an integer'],
    [{ page: '' }, 'page must be an integer'],
    [{ page: '1.5' }, 'page must be an integer'],
    [{ page: 1.5 }, 'page must be an integer'],
    [{ page: '1000000001' }, 'page must be at most 1000000000'],
    [{ page: '1234567890123456' }, 'page must be an integer'],
    [{ per_page: '0' }, 'per_page must be at least 1'],
    [{ per_page: '501' }, 'per_page must be at most 500'],
    [{ per_page: '1e2' }, 'per_page must be an integer'],
  ])('refuses %j with "%s"', async (raw, message) => {
    expect((await check(raw)).messages).toContain(message);
  });
});
