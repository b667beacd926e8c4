import { generateKeyPairSync } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AcmeAccounts, AcmeClientAccount } from '../issuers/acme-accounts';
import { IssuanceSecrets } from '../issuers/issuance-secrets';

/**
 * `acme_client_accounts` (migration 0025): one account per issuer and directory URL, its key
 * sealed with the issuer id and directory as associated data. Two replicas making the first
 * account at once both insert with ON CONFLICT DO NOTHING and read back the one that won.
 */
@Injectable()
export class AcmeAccountStore implements AcmeAccounts {
  constructor(
    @InjectDataSource('issuance') private readonly dataSource: DataSource,
    private readonly secrets: IssuanceSecrets,
  ) {}

  async accountFor(issuerId: string, directoryUrl: string): Promise<AcmeClientAccount> {
    const stored = await this.read(issuerId, directoryUrl);
    if (stored) return stored;
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const keyPem = privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
    await this.dataSource.query(
      `INSERT INTO acme_client_accounts (issuer_id, directory_url, key_sealed) VALUES ($1, $2, $3)
       ON CONFLICT DO NOTHING`,
      [
        issuerId,
        directoryUrl,
        this.secrets.issuerConfig.seal(keyPem, associatedData(issuerId, directoryUrl)),
      ],
    );
    return (await this.read(issuerId, directoryUrl)) as AcmeClientAccount;
  }

  async registered(issuerId: string, directoryUrl: string, accountUrl: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE acme_client_accounts SET account_url = $3 WHERE issuer_id = $1 AND directory_url = $2`,
      [issuerId, directoryUrl, accountUrl],
    );
  }

  private async read(issuerId: string, directoryUrl: string): Promise<AcmeClientAccount | null> {
    const rows: { key_sealed: string; account_url: string | null }[] = await this.dataSource.query(
      `SELECT key_sealed, account_url FROM acme_client_accounts WHERE issuer_id = $1 AND directory_url = $2`,
      [issuerId, directoryUrl],
    );
    if (rows.length === 0) return null;
    return {
      keyPem: this.secrets.issuerConfig.open(rows[0].key_sealed, associatedData(issuerId, directoryUrl)),
      accountUrl: rows[0].account_url,
    };
  }
}

const associatedData = (issuerId: string, directoryUrl: string) =>
  `acme account\n${issuerId}\n${directoryUrl}`;
