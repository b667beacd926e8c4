import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { CertificateIssued, IssuedCertificateLookup } from '@certlane/contracts';
import { MESSAGE_BUS, MessageBus } from '@certlane/platform';
import { DataSource } from 'typeorm';

interface IssuedRow {
  issuer_id: string;
  ca_id: string | null;
  serial_hex: string;
  not_before: Date;
  not_after: Date;
  fingerprint_sha256: string;
  created_at: Date;
}

/**
 * issuance.v1.get-issued-certificate: whether an issuer issued a serial, and under which CA. The
 * revocation service asks when an OCSP request or a revocation names a serial whose
 * `issuance.v1.certificate.issued` event it has not consumed yet, or that was issued before the
 * event existed (ADR 0023). A primary-key lookup in issued_certificates.
 */
@Injectable()
export class IssuedCertificateLookupHandler implements OnApplicationBootstrap {
  constructor(
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @InjectDataSource('issuance') private readonly dataSource: DataSource,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.bus.handle('issuance.v1.get-issued-certificate', (request) =>
      this.find(request.issuer_id, request.serial_hex),
    );
  }

  async find(issuerId: string, serialHex: string): Promise<IssuedCertificateLookup> {
    const rows: IssuedRow[] = await this.dataSource.query(
      `SELECT issuer_id, ca_id, serial_hex, not_before, not_after, fingerprint_sha256, created_at
       FROM issued_certificates WHERE issuer_id = $1 AND serial_hex = $2`,
      [issuerId, serialHex],
    );
    const row = rows[0];
    if (!row || row.ca_id === null) return { certificate: null };
    const certificate: CertificateIssued = {
      issuer_id: row.issuer_id,
      ca_id: row.ca_id,
      serial_hex: row.serial_hex,
      not_before: row.not_before.toISOString(),
      not_after: row.not_after.toISOString(),
      fingerprint_sha256: row.fingerprint_sha256,
      issued_at: row.created_at.toISOString(),
    };
    return { certificate };
  }
}
