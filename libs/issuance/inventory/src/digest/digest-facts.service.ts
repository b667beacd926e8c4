import { Injectable, OnApplicationBootstrap, Inject } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DigestFactsDto, DigestFactsRequest } from '@certlane/contracts';
import { MESSAGE_BUS, MessageBus } from '@certlane/platform';
import { DataSource } from 'typeorm';
import {
  EXPIRING_CERTIFICATES,
  FAILED_JOBS,
  OPEN_VIOLATIONS,
  PENDING_APPROVALS,
} from './digest-facts.queries';

type Row = Record<string, unknown> & { total: number };

const iso = (value: unknown): string => new Date(value as string | Date).toISOString();

/** Strips the window count and turns timestamps into ISO text. */
function lines<T>(rows: Row[], dates: string[]): T[] {
  return rows.map(({ total: _total, ...row }) => {
    for (const key of dates) row[key] = iso(row[key]);
    return row as T;
  });
}

/** Serves `issuance.v1.get-digest-facts`: what the notifier's daily digest summarises. */
@Injectable()
export class DigestFactsService implements OnApplicationBootstrap {
  constructor(
    @InjectDataSource('issuance') private readonly dataSource: DataSource,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.bus.handle('issuance.v1.get-digest-facts', (request) => this.facts(request));
  }

  async facts(request: DigestFactsRequest): Promise<DigestFactsDto> {
    const generated_at = new Date().toISOString();
    const [expiring, failed, violations, approvals] = (await Promise.all([
      this.dataSource.query(EXPIRING_CERTIFICATES, [request.days, request.limit]),
      this.dataSource.query(FAILED_JOBS, [request.failed_since, request.limit]),
      this.dataSource.query(OPEN_VIOLATIONS, [request.limit]),
      this.dataSource.query(PENDING_APPROVALS, [request.limit]),
    ])) as Row[][];
    const total = (rows: Row[]) => rows[0]?.total ?? 0;
    return {
      generated_at,
      expiring: lines(expiring, ['expires_at']),
      failed_jobs: lines(failed, ['failed_at']),
      violations: lines(violations, ['detected_at']),
      approvals: lines(approvals, ['requested_at']),
      totals: {
        expiring: total(expiring),
        failed_jobs: total(failed),
        violations: total(violations),
        approvals: total(approvals),
      },
    };
  }
}
