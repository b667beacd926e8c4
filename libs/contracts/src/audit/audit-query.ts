import { Transform } from 'class-transformer';
import {
  IsArray,
  IsIn,
  IsInt,
  IsISO8601,
  IsOptional,
  IsString,
  Length,
  Matches,
  Max,
  Min,
} from 'class-validator';
import { CertlaneError, FieldError } from '../errors/certlane-error';
import { digitsToNumber, PageQuery } from '../pagination/page';
import { AUDIT_CATEGORIES, AuditCategory, AuditEventDto } from './audit-record';

/** Spec 8: an export covers at most 90 days and 1..100000 events. */
export const AUDIT_EXPORT_WINDOW_MAX_DAYS = 90;
export const AUDIT_EXPORT_DEFAULT_WINDOW_HOURS = 24;
export const AUDIT_EXPORT_LIMIT_MAX = 100_000;
export const AUDIT_EXPORT_LIMIT_DEFAULT = 10_000;
/** Most events one export page carries over the bus. */
export const AUDIT_EXPORT_PAGE_MAX = 1000;

const CATEGORY_LIST = new RegExp(`^(${AUDIT_CATEGORIES.join('|')})(,(${AUDIT_CATEGORIES.join('|')}))*$`);
const CATEGORY_MESSAGE = `category must be one or more of ${AUDIT_CATEGORIES.join(', ')}, comma-separated`;
const TIMESTAMP_MESSAGE = (field: string) => `${field} must be an ISO 8601 timestamp`;

/** `category` of the list and the export: one category or several, comma-separated. */
const Categories = () => (target: object, key: string | symbol) => {
  IsOptional()(target, key);
  IsString({ message: CATEGORY_MESSAGE })(target, key);
  Matches(CATEGORY_LIST, { message: CATEGORY_MESSAGE })(target, key);
};

const Timestamp = (field: string) => (target: object, key: string | symbol) => {
  IsOptional()(target, key);
  IsISO8601({ strict: true }, { message: TIMESTAMP_MESSAGE(field) })(target, key);
};

const Text = () => (target: object, key: string | symbol) => {
  IsOptional()(target, key);
  IsString()(target, key);
  Length(1, 256)(target, key);
};

/** GET /api/v1/audit: a page of events, newest first, with optional filters. */
export class AuditListQuery extends PageQuery {
  @Categories()
  category?: string;

  @Text()
  action?: string;

  @Text()
  actor_id?: string;

  @Text()
  resource_type?: string;

  @Text()
  resource_id?: string;

  /** occurred_at >= from. */
  @Timestamp('from')
  from?: string;

  /** occurred_at < to. */
  @Timestamp('to')
  to?: string;
}

export class ListAuditEventsRequest extends AuditListQuery {}

/** GET /api/v1/audit/export query (spec 4.10, 8). */
export class AuditExportQuery {
  @Timestamp('from')
  from?: string;

  @Timestamp('to')
  to?: string;

  // Validation stops at the first failure and decorators apply bottom-up: IsInt, written last, runs first.
  @IsOptional()
  @Transform(digitsToNumber)
  @Max(AUDIT_EXPORT_LIMIT_MAX, { message: `limit must be at most ${AUDIT_EXPORT_LIMIT_MAX}` })
  @Min(1, { message: 'limit must be at least 1' })
  @IsInt({ message: 'limit must be an integer' })
  limit?: number;

  @Categories()
  category?: string;
}

/** An export query with its defaults applied and its window checked. */
export interface AuditExportPlan {
  from: Date;
  to: Date;
  limit: number;
  /** Empty: every category. */
  categories: AuditCategory[];
}

export function parseAuditCategories(value: string | undefined): AuditCategory[] {
  if (value === undefined) return [];
  return [...new Set(value.split(',') as AuditCategory[])];
}

/**
 * Applies the defaults of an export (the last 24 hours, 10000 events) and checks the window:
 * `from` inclusive, `to` exclusive, `from` not after `to`, at most 90 days. Throws
 * validation_failed, so the gateway answers 400 before it writes any byte of the body.
 */
export function planAuditExport(query: AuditExportQuery, now: Date = new Date()): AuditExportPlan {
  const errors: FieldError[] = [];
  const parse = (field: 'from' | 'to'): Date | undefined => {
    const value = query[field];
    if (value === undefined) return undefined;
    const date = new Date(value);
    if (Number.isNaN(date.getTime())) errors.push({ field, message: TIMESTAMP_MESSAGE(field) });
    return date;
  };
  const givenFrom = parse('from');
  const givenTo = parse('to');
  if (errors.length > 0) throw CertlaneError.validation(errors);
  const defaultWindowMs = AUDIT_EXPORT_DEFAULT_WINDOW_HOURS * 3600_000;
  const to = givenTo ?? now;
  const from = givenFrom ?? new Date(to.getTime() - defaultWindowMs);
  if (from.getTime() > to.getTime()) {
    throw CertlaneError.validation([{ field: 'from', message: 'from must not be after to' }]);
  }
  if (to.getTime() - from.getTime() > AUDIT_EXPORT_WINDOW_MAX_DAYS * 86400_000) {
    throw CertlaneError.validation([
      { field: 'to', message: `the window from..to must be at most ${AUDIT_EXPORT_WINDOW_MAX_DAYS} days` },
    ]);
  }
  return {
    from,
    to,
    limit: query.limit ?? AUDIT_EXPORT_LIMIT_DEFAULT,
    categories: parseAuditCategories(query.category),
  };
}

/** One page of an export, asked of the auth service: events after a keyset cursor. */
export class ExportAuditPageRequest {
  @IsISO8601({ strict: true })
  from!: string;

  @IsISO8601({ strict: true })
  to!: string;

  @IsOptional()
  @IsArray()
  @IsIn(AUDIT_CATEGORIES as unknown as string[], { each: true })
  categories?: AuditCategory[];

  @IsInt()
  @Min(1)
  @Max(AUDIT_EXPORT_PAGE_MAX)
  limit!: number;

  /** The cursor: the last event of the previous page (occurred_at, seq). Both or neither. */
  @IsOptional()
  @IsISO8601({ strict: true })
  after_occurred_at?: string;

  @IsOptional()
  @IsInt()
  @Min(0)
  after_seq?: number;
}

export interface AuditExportCursor {
  after_occurred_at: string;
  after_seq: number;
}

export interface AuditExportPage {
  data: AuditEventDto[];
  /** Where the next page starts; null when this page was the last one. */
  next: AuditExportCursor | null;
}

export class VerifyAuditChainRequest {}
