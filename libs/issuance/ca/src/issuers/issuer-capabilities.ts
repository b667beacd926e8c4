import { Inject, Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { ISSUER_CONNECTORS, IssuerConnectors } from './issuer-connectors';

/**
 * Which issuers can sign a new certificate version: those of a kind with a connector in the
 * registry (ADR 0046). Renew and issue requests are refused up front for the others (501,
 * `versionJobRefusal`), and the renewal loop passes their certificates by (`issuingKinds`).
 */
@Injectable()
export class IssuerCapabilities {
  constructor(@Inject(ISSUER_CONNECTORS) private readonly connectors: IssuerConnectors) {}

  /** The kinds that issue, in registry order (`local_ca`, `script`). */
  issuingKinds(): string[] {
    return this.connectors.kinds();
  }

  /** Issuer id -> kind, for those of `ids` whose kind has no connector; unknown ids are left out. */
  async withoutConnector(
    manager: EntityManager,
    ids: readonly (string | null)[],
  ): Promise<Map<string, string>> {
    const wanted = [...new Set(ids.filter((id): id is string => !!id))];
    if (wanted.length === 0) return new Map();
    const rows: { id: string; kind: string }[] = await manager.query(
      `SELECT id, kind FROM issuers WHERE id = ANY($1::text[]) AND NOT (kind = ANY($2::text[]))`,
      [wanted, this.issuingKinds()],
    );
    return new Map(rows.map((row) => [row.id, row.kind]));
  }

  /** The kind of this issuer when it has no connector, else null (also for an unknown issuer). */
  async kindWithoutConnector(manager: EntityManager, issuerId: string | null): Promise<string | null> {
    if (!issuerId) return null;
    return (await this.withoutConnector(manager, [issuerId])).get(issuerId) ?? null;
  }
}
