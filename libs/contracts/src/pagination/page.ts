import { Transform } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';

export const PAGE_DEFAULT = 1;
export const PER_PAGE_DEFAULT = 50;
export const PER_PAGE_MAX = 500;
/** Far beyond any real list; keeps offsets within safe integers. */
export const PAGE_MAX = 1_000_000_000;

/** The pagination envelope of every list (spec 2.1). */
export interface Page<T> {
  data: T[];
  total: number;
  page: number;
  per_page: number;
}

/** Query strings arrive as text: only plain decimal digits become numbers, anything else fails IsInt. */
export const digitsToNumber = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' && /^\d{1,15}$/.test(value) ? Number(value) : value;

export class PageQuery {
  @IsOptional()
  @Transform(digitsToNumber)
  @IsInt({ message: 'page must be an integer' })
  @Min(1, { message: 'page must be at least 1' })
  @Max(PAGE_MAX, { message: `page must be at most ${PAGE_MAX}` })
  page?: number;

  @IsOptional()
  @Transform(digitsToNumber)
  @IsInt({ message: 'per_page must be an integer' })
  @Min(1, { message: 'per_page must be at least 1' })
  @Max(PER_PAGE_MAX, { message: `per_page must be at most ${PER_PAGE_MAX}` })
  per_page?: number;
}

export interface ResolvedPage {
  page: number;
  per_page: number;
  offset: number;
}

export function resolvePage(query: PageQuery): ResolvedPage {
  const page = query.page ?? PAGE_DEFAULT;
  const perPage = query.per_page ?? PER_PAGE_DEFAULT;
  return { page, per_page: perPage, offset: (page - 1) * perPage };
}
