import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { CertificateIssued } from '@certlane/contracts';
import { SqlExecutor } from '@certlane/platform';
import { DataSource } from 'typeorm';

/** The serials each CA of an issuer issued (table issued_certificates, migrations/revocation/0002). */
@Injectable()
export class IssuedRepository {
  constructor(@InjectDataSource('revocation') readonly dataSource: DataSource) {}

  /** Stores an issued certificate; a second event about the same serial changes nothing. True when stored. */
  async insert(executor: SqlExecutor, event: CertificateIssued): Promise<boolean> {
    const rows = (await executor.query(
      `INSERT INTO issued_certificates
         (issuer_id, serial_hex, ca_id, not_before, not_after, fingerprint_sha256, issued_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING RETURNING serial_hex`,
      [
        event.issuer_id,
        event.serial_hex,
        event.ca_id,
        event.not_before,
        event.not_after,
        event.fingerprint_sha256,
        event.issued_at,
      ],
    )) as unknown[];
    return rows.length > 0;
  }

  /** The CA that issued a serial of the issuer, if known here. */
  async caOf(issuerId: string, serialHex: string): Promise<string | undefined> {
    const rows: { ca_id: string }[] = await this.dataSource.query(
      'SELECT ca_id FROM issued_certificates WHERE issuer_id = $1 AND serial_hex = $2',
      [issuerId, serialHex],
    );
    return rows[0]?.ca_id;
  }
}
