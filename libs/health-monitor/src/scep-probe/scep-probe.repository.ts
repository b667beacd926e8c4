import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { ScepProbeResultDto } from '@certlane/contracts';
import { daysToExpiry } from '@certlane/health-monitor-domain';
import { DataSource, EntityManager } from 'typeorm';
import { ScepProbeFindings } from './scep-prober';

/** Probes kept; older ones are dropped as new ones arrive. */
const KEPT = 1000;

interface ProbeRow extends Omit<ScepProbeFindings, 'ca_not_before' | 'ca_not_after'> {
  id: string;
  ca_not_before: Date | null;
  ca_not_after: Date | null;
  probed_at: Date;
}

const COLUMNS =
  'id, target_url, reachable, capabilities, supports_rfc8894, supports_aes, supports_post, supports_renewal, ' +
  'supports_sha256, supports_sha512, ca_subject, ca_issuer, ca_not_before, ca_not_after, key_algorithm, ' +
  'chain_length, probed_at, probe_duration_ms, error';

/** Days to expiry and the expired flag are derived from `now`, so a stored probe ages when read. */
export function scepProbeDto(row: ProbeRow, now: Date): ScepProbeResultDto {
  const days = row.ca_not_after ? daysToExpiry(row.ca_not_after, now) : null;
  return {
    id: String(row.id),
    target_url: row.target_url,
    reachable: row.reachable,
    capabilities: row.capabilities,
    supports_rfc8894: row.supports_rfc8894,
    supports_aes: row.supports_aes,
    supports_post: row.supports_post,
    supports_renewal: row.supports_renewal,
    supports_sha256: row.supports_sha256,
    supports_sha512: row.supports_sha512,
    ca_subject: row.ca_subject,
    ca_issuer: row.ca_issuer,
    ca_not_before: row.ca_not_before?.toISOString() ?? null,
    ca_not_after: row.ca_not_after?.toISOString() ?? null,
    days_to_expiry: days,
    expired: row.ca_not_after ? row.ca_not_after.getTime() <= now.getTime() : null,
    key_algorithm: row.key_algorithm,
    chain_length: row.chain_length,
    probed_at: row.probed_at.toISOString(),
    probe_duration_ms: row.probe_duration_ms,
    error: row.error,
  };
}

@Injectable()
export class ScepProbeRepository {
  constructor(@InjectDataSource('health-monitor') private readonly dataSource: DataSource) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  async insert(
    manager: EntityManager,
    findings: ScepProbeFindings,
    probedAt: Date,
    requestedBy: string | null,
  ): Promise<ProbeRow> {
    const f = findings;
    const rows: ProbeRow[] = await manager.query(
      `INSERT INTO scep_probes (target_url, reachable, capabilities, supports_rfc8894, supports_aes, supports_post,
         supports_renewal, supports_sha256, supports_sha512, ca_subject, ca_issuer, ca_not_before, ca_not_after,
         key_algorithm, chain_length, probed_at, probe_duration_ms, error, requested_by)
       VALUES ($1, $2, $3::jsonb, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19)
       RETURNING ${COLUMNS}`,
      [
        f.target_url,
        f.reachable,
        JSON.stringify(f.capabilities),
        f.supports_rfc8894,
        f.supports_aes,
        f.supports_post,
        f.supports_renewal,
        f.supports_sha256,
        f.supports_sha512,
        f.ca_subject,
        f.ca_issuer,
        f.ca_not_before,
        f.ca_not_after,
        f.key_algorithm,
        f.chain_length,
        probedAt,
        f.probe_duration_ms,
        f.error,
        requestedBy,
      ],
    );
    await manager.query(
      `DELETE FROM scep_probes WHERE id < (SELECT id FROM scep_probes ORDER BY id DESC OFFSET $1 LIMIT 1)`,
      [KEPT - 1],
    );
    return rows[0];
  }

  recent(limit: number): Promise<ProbeRow[]> {
    return this.dataSource.query(`SELECT ${COLUMNS} FROM scep_probes ORDER BY id DESC LIMIT $1`, [limit]);
  }
}
