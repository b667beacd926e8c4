import { Inject, Injectable } from '@nestjs/common';
import {
  emailConnector,
  NotifierConnector,
  NotifierKind,
  opsGenieConnector,
  pagerDutyConnector,
  slackConnector,
  teamsConnector,
  webhookConnector,
} from '@certlane/connectors';
import { DeliveryLimits, deliveryLimits } from '@certlane/notifier-domain';
import { CERTLANE_CONFIG, CertlaneConfig, SecretBox, SqlExecutor } from '@certlane/platform';

/** The SecretBox label of notifier secrets; the notifier id is the associated data. */
export const NOTIFIER_SECRETS_BOX = 'notifier secrets';

/** The six notifier kinds (spec 1) and their connectors. */
export const CONNECTORS: Record<NotifierKind, NotifierConnector> = {
  email: emailConnector as NotifierConnector,
  webhook: webhookConnector as NotifierConnector,
  slack: slackConnector as NotifierConnector,
  teams: teamsConnector as NotifierConnector,
  pagerduty: pagerDutyConnector as NotifierConnector,
  opsgenie: opsGenieConnector as NotifierConnector,
};

export type LoadedNotifier =
  | { found: false }
  | { found: true; enabled: boolean; connector: NotifierConnector; config: unknown; limits: DeliveryLimits }
  | { found: true; unusable: string };

interface NotifierRow {
  id: string;
  kind: NotifierKind;
  settings: Record<string, unknown>;
  sealed_secrets: string | null;
  enabled: boolean;
}

/** Reads a notifier and opens its sealed secrets (never logged, never answered). */
@Injectable()
export class NotifierDirectory {
  private readonly box: SecretBox;
  /** Opened notifiers by id, with the stored row they were opened from. */
  private readonly opened = new Map<string, { version: string; notifier: LoadedNotifier }>();

  constructor(@Inject(CERTLANE_CONFIG) config: CertlaneConfig) {
    this.box = new SecretBox(config.configEncryptionKey, NOTIFIER_SECRETS_BOX);
  }

  seal(notifierId: string, secrets: Record<string, unknown>): string {
    return this.box.seal(JSON.stringify(secrets), notifierId);
  }

  /** Opens a notifier's sealed secrets; throws when they do not open. */
  open(notifierId: string, sealed: string | null): Record<string, unknown> {
    return sealed ? (JSON.parse(this.box.open(sealed, notifierId)) as Record<string, unknown>) : {};
  }

  async load(executor: SqlExecutor, id: string): Promise<LoadedNotifier> {
    return (await this.loadMany(executor, [id])).get(id) ?? { found: false };
  }

  /**
   * The notifiers, read in one statement. Opening and parsing a notifier is remembered for as
   * long as its stored row stays the same, so a sweep decrypts a notifier's secrets once, yet an
   * edit or a deletion is seen at once.
   */
  async loadMany(executor: SqlExecutor, ids: readonly string[]): Promise<Map<string, LoadedNotifier>> {
    const rows = (await executor.query(
      'SELECT id, kind, settings, sealed_secrets, enabled FROM notifiers WHERE id = ANY($1)',
      [[...new Set(ids)]],
    )) as NotifierRow[];
    const loaded = new Map<string, LoadedNotifier>();
    for (const row of rows) {
      const version = JSON.stringify([row.kind, row.settings, row.sealed_secrets, row.enabled]);
      let opened = this.opened.get(row.id);
      if (opened?.version !== version) {
        opened = { version, notifier: this.openRow(row) };
        this.opened.set(row.id, opened);
      }
      loaded.set(row.id, opened.notifier);
    }
    for (const id of this.opened.keys()) if (ids.includes(id) && !loaded.has(id)) this.opened.delete(id);
    return loaded;
  }

  private openRow(row: NotifierRow): LoadedNotifier {
    const connector = CONNECTORS[row.kind];
    if (!connector) return { found: true, unusable: `notifier kind ${row.kind} cannot send yet` };
    let secrets: Record<string, unknown> = {};
    try {
      if (row.sealed_secrets)
        secrets = JSON.parse(this.box.open(row.sealed_secrets, row.id)) as Record<string, unknown>;
    } catch {
      return {
        found: true,
        unusable: 'the notifier secrets do not open (was SERVICE_CONFIG_ENCRYPTION_KEY changed?)',
      };
    }
    const config = connector.parse(row.settings, secrets);
    if (config && typeof config === 'object' && 'invalid' in config)
      return { found: true, unusable: `notifier config: ${(config as { invalid: string }).invalid}` };
    const limits = deliveryLimits(row.kind, row.settings);
    if ('invalid' in limits) return { found: true, unusable: `notifier config: ${limits.invalid}` };
    return { found: true, enabled: row.enabled, connector, config, limits };
  }
}
