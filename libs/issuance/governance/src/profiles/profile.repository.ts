import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { CertlaneError, ErrorCode, Page, ProfileDto, ResolvedPage } from '@certlane/contracts';
import { ProfileFields } from '@certlane/issuance-domain';
import { DataSource, EntityManager } from 'typeorm';
import { isStillReferenced, isUniqueViolation } from '@certlane/platform';
import { notFound, pageOf } from '@certlane/issuance-data-access';

export interface ProfileRow extends ProfileFields {
  id: string;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = `id, name, description, allowed_key_algorithms, allowed_ekus, required_csr_attributes,
  must_staple, validity_days, requires_approval, created_at, updated_at`;

export function profileDto(row: ProfileRow): ProfileDto {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    allowed_key_algorithms: row.allowed_key_algorithms,
    allowed_ekus: row.allowed_ekus,
    required_csr_attributes: row.required_csr_attributes,
    must_staple: row.must_staple,
    validity_days: row.validity_days,
    requires_approval: row.requires_approval,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

export const profileNotFound = (id: string) => notFound(ErrorCode.ProfileNotFound, 'profile', id);

const profileInUse = (id: string, certificates?: number) =>
  new CertlaneError(
    ErrorCode.ProfileInUse,
    `profile ${JSON.stringify(id)} is referenced by ${certificates ?? 'some'} certificate(s)`,
    certificates === undefined ? {} : { certificates },
  );

function values(fields: ProfileFields): unknown[] {
  return [
    fields.name,
    fields.description,
    fields.allowed_key_algorithms,
    fields.allowed_ekus,
    fields.required_csr_attributes,
    fields.must_staple,
    fields.validity_days,
    fields.requires_approval,
  ];
}

/** Certificate profiles (raw SQL, schema issuance; migration 0006). */
@Injectable()
export class ProfileRepository {
  constructor(@InjectDataSource('issuance') readonly dataSource: DataSource) {}

  /** `lock`: `update` for changes, `key share` to keep it from being deleted meanwhile. */
  async find(
    id: string,
    manager: EntityManager = this.dataSource.manager,
    lock?: 'update' | 'key share',
  ): Promise<ProfileRow | null> {
    const rows: ProfileRow[] = await manager.query(
      `SELECT ${COLUMNS} FROM profiles WHERE id = $1${lock ? ` FOR ${lock.toUpperCase()}` : ''}`,
      [id],
    );
    return rows[0] ?? null;
  }

  async list(page: ResolvedPage): Promise<Page<ProfileDto>> {
    const [rows, [{ total }]] = await Promise.all([
      this.dataSource.query(`SELECT ${COLUMNS} FROM profiles ORDER BY id LIMIT $1 OFFSET $2`, [
        page.per_page,
        page.offset,
      ]) as Promise<ProfileRow[]>,
      this.dataSource.query('SELECT count(*)::int AS total FROM profiles') as Promise<{ total: number }[]>,
    ]);
    return pageOf(rows.map(profileDto), total, page);
  }

  async idsWithPrefix(manager: EntityManager, prefix: string): Promise<Set<string>> {
    const rows: { id: string }[] = await manager.query(
      `SELECT id FROM profiles WHERE id = $1 OR id LIKE $2`,
      [prefix, `${prefix.replace(/[\\%_]/g, '\\$&')}-%`],
    );
    return new Set(rows.map((row) => row.id));
  }

  async insert(manager: EntityManager, id: string, fields: ProfileFields): Promise<ProfileRow> {
    try {
      const rows: ProfileRow[] = await manager.query(
        `INSERT INTO profiles (id, name, description, allowed_key_algorithms, allowed_ekus,
           required_csr_attributes, must_staple, validity_days, requires_approval)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING ${COLUMNS}`,
        [id, ...values(fields)],
      );
      return rows[0];
    } catch (error) {
      if (isUniqueViolation(error, ['profiles_pkey'])) {
        throw new CertlaneError(ErrorCode.ProfileExists, `profile ${JSON.stringify(id)} already exists`);
      }
      throw error;
    }
  }

  async update(manager: EntityManager, id: string, fields: ProfileFields): Promise<ProfileRow> {
    const [rows]: [ProfileRow[], number] = await manager.query(
      `UPDATE profiles SET name = $2, description = $3, allowed_key_algorithms = $4, allowed_ekus = $5,
         required_csr_attributes = $6, must_staple = $7, validity_days = $8, requires_approval = $9,
         updated_at = now()
       WHERE id = $1 RETURNING ${COLUMNS}`,
      [id, ...values(fields)],
    );
    return rows[0];
  }

  /** Certificates that name the profile (served by certificates_profile_ref). */
  async certificateCount(manager: EntityManager, id: string): Promise<number> {
    const [{ n }]: { n: number }[] = await manager.query(
      'SELECT count(*)::int AS n FROM certificates WHERE profile_ref = $1',
      [id],
    );
    return n;
  }

  /** Deletes the profile; a reference that appeared meanwhile still makes it 409 (foreign key). */
  async delete(manager: EntityManager, id: string): Promise<void> {
    try {
      await manager.query('DELETE FROM profiles WHERE id = $1', [id]);
    } catch (error) {
      if (isStillReferenced(error)) throw profileInUse(id);
      throw error;
    }
  }

  /** Whether issuance under the profile waits for approval ('' = no profile = no). */
  static inUse = profileInUse;
}
