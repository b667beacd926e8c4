import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { CertlaneError, ErrorCode, Page, RenewalPolicyDto, ResolvedPage } from '@certlane/contracts';
import { RenewalPolicyFields } from '@certlane/issuance-domain';
import { isUniqueViolation, PreparedQuery } from '@certlane/platform';
import { DataSource, EntityManager } from 'typeorm';
import { RenewalPolicyEntity } from './renewal-policy.entity';
import { pageOf } from '@certlane/issuance-data-access';

/** The renewal policy a certificate gets when the request names none (migration 0002). */
export const DEFAULT_RENEWAL_POLICY_ID = 'rp-default';

const FIND_BY_ID = new PreparedQuery<RenewalPolicyEntity>(
  'issuance_renewal_policy_by_id',
  `SELECT id, name, renewal_window_days, max_retries, retry_interval_seconds, alert_thresholds_days,
     created_at, updated_at FROM renewal_policies WHERE id = $1`,
);

export function toDto(row: RenewalPolicyEntity): RenewalPolicyDto {
  return {
    id: row.id,
    name: row.name,
    renewal_window_days: row.renewal_window_days,
    max_retries: row.max_retries,
    retry_interval_seconds: row.retry_interval_seconds,
    alert_thresholds_days: row.alert_thresholds_days,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/** Storage of renewal policies in the issuance schema. */
@Injectable()
export class RenewalPolicyRepository {
  constructor(@InjectDataSource('issuance') private readonly dataSource: DataSource) {}

  async list(page: ResolvedPage): Promise<Page<RenewalPolicyDto>> {
    const [rows, total] = await this.dataSource.getRepository(RenewalPolicyEntity).findAndCount({
      order: { id: 'ASC' },
      skip: page.offset,
      take: page.per_page,
    });
    return pageOf(rows.map(toDto), total, page);
  }

  find(id: string, manager: EntityManager = this.dataSource.manager): Promise<RenewalPolicyEntity | null> {
    return manager.getRepository(RenewalPolicyEntity).findOneBy({ id });
  }

  /**
   * The read behind GET /renewal-policies/{id}, the hottest path: plain SQL, no query builder
   * (see bench/gateway-roundtrip).
   */
  async findDto(id: string): Promise<RenewalPolicyDto | null> {
    const rows = await FIND_BY_ID.rows(this.dataSource, [id]);
    return rows.length > 0 ? toDto(rows[0]) : null;
  }

  /**
   * Ids taken by `baseId` and its suffixed forms. Id allocation is serialised by one
   * transaction lock: a slug can equal another policy's suffixed id ("Web TLS 2" and the second
   * "Web TLS"), so a per-slug lock would not be enough. Creates are rare; the lock is cheap.
   */
  async idsWithPrefix(manager: EntityManager, baseId: string): Promise<Set<string>> {
    await manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', [
      'certlane:issuance:renewal-policy-ids',
    ]);
    const rows: { id: string }[] = await manager.query(
      `SELECT id FROM renewal_policies WHERE id = $1 OR id LIKE $2`,
      [baseId, `${baseId.replace(/[\\%_]/g, '\\$&')}-%`],
    );
    return new Set(rows.map((row) => row.id));
  }

  async insert(
    manager: EntityManager,
    id: string,
    fields: RenewalPolicyFields,
  ): Promise<RenewalPolicyEntity> {
    const repository = manager.getRepository(RenewalPolicyEntity);
    try {
      await repository.insert({ id, ...fields });
    } catch (error) {
      throw translateUniqueViolation(error, fields.name);
    }
    return (await repository.findOneBy({ id })) as RenewalPolicyEntity;
  }

  async update(
    manager: EntityManager,
    id: string,
    fields: RenewalPolicyFields,
  ): Promise<RenewalPolicyEntity> {
    const repository = manager.getRepository(RenewalPolicyEntity);
    try {
      await repository.update({ id }, { ...fields });
    } catch (error) {
      throw translateUniqueViolation(error, fields.name);
    }
    return (await repository.findOneBy({ id })) as RenewalPolicyEntity;
  }

  /** A policy certificates still reference is refused by the foreign key (the service maps it). */
  async delete(manager: EntityManager, id: string): Promise<boolean> {
    const result = await manager.getRepository(RenewalPolicyEntity).delete({ id });
    return (result.affected ?? 0) > 0;
  }
}

function translateUniqueViolation(error: unknown, name: string): unknown {
  if (isUniqueViolation(error, ['renewal_policies_name_key'])) {
    return new CertlaneError(
      ErrorCode.RenewalPolicyDuplicateName,
      `a renewal policy named ${JSON.stringify(name)} already exists`,
    );
  }
  return error;
}
