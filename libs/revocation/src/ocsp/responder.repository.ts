import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

export interface ResponderRow {
  issuer_id: string;
  ca_id: string;
  sealed_private_key: string;
  certificate_pem: string;
  not_after: Date;
}

/** The delegated OCSP responder of each CA of an issuer (table ocsp_responders). */
@Injectable()
export class ResponderRepository {
  constructor(@InjectDataSource('revocation') private readonly dataSource: DataSource) {}

  async find(issuerId: string, caId: string): Promise<ResponderRow | undefined> {
    const rows: ResponderRow[] = await this.dataSource.query(
      `SELECT issuer_id, ca_id, sealed_private_key, certificate_pem, not_after FROM ocsp_responders
       WHERE issuer_id = $1 AND ca_id = $2`,
      [issuerId, caId],
    );
    return rows[0];
  }

  async save(row: ResponderRow): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO ocsp_responders (issuer_id, ca_id, sealed_private_key, certificate_pem, not_after, created_at)
       VALUES ($1, $2, $3, $4, $5, now())
       ON CONFLICT (issuer_id, ca_id) DO UPDATE SET sealed_private_key = EXCLUDED.sealed_private_key,
         certificate_pem = EXCLUDED.certificate_pem, not_after = EXCLUDED.not_after, created_at = now()`,
      [row.issuer_id, row.ca_id, row.sealed_private_key, row.certificate_pem, row.not_after],
    );
  }
}
