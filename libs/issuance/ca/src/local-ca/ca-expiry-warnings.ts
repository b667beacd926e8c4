import { Inject, Injectable } from '@nestjs/common';
import { CaExpiryWarning } from '@certlane/contracts';
import { daysRemaining, expiryWarningsDue } from '@certlane/issuance-domain';
import { CERTLANE_CONFIG, CertlaneConfig, outboxToken, ServiceOutbox } from '@certlane/platform';
import { UnitOfWork } from '@certlane/issuance-data-access';

/** Days after its end a CA is still looked at (an outage hid it, or the service was down). */
const EXPIRED_LOOKBACK_DAYS = 30;

interface CaAlertRow {
  id: string;
  issuer_id: string;
  subject: string;
  status: 'active' | 'retired';
  issuing: boolean;
  root: boolean;
  not_after: Date;
  db_now: Date;
  sent: number[];
}

/**
 * CA expiry warnings (ADR 0077): the CAs held here that are active, or retired and so still the
 * signer of what they issued, whose end is within the first CA alert threshold; each threshold
 * crossed is recorded once (ca_expiry_alerts' primary key) and the nearest to the end announced as
 * `issuance.v1.ca.expiry-warning`, in one transaction, by whichever replica records it first.
 * The thresholds are SERVICE_CA_EXPIRY_ALERT_DAYS. Run by the renewal loop's sweep (SERVICE_RENEWAL_SWEEP_INTERVAL).
 */
@Injectable()
export class CaExpiryWarnings {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    @Inject(outboxToken('issuance')) private readonly outbox: ServiceOutbox,
    @Inject(CERTLANE_CONFIG) private readonly config: CertlaneConfig,
  ) {}

  /** Sends the warnings due now; returns how many. */
  send(): Promise<number> {
    return this.unitOfWork.run(async (manager) => {
      const rows: CaAlertRow[] = await manager.query(
        `SELECT c.id, coalesce(c.issuer_id, '') AS issuer_id, c.subject, c.status, c.not_after, now() AS db_now,
                coalesce(i.issuing_ca_id = c.id, false) AS issuing, c.parent_id IS NULL AS root,
                coalesce((SELECT array_agg(a.threshold_days) FROM ca_expiry_alerts a
                           WHERE a.ca_id = c.id AND a.not_after = c.not_after), '{}') AS sent
           FROM ca_certificates c LEFT JOIN issuers i ON i.id = c.issuer_id
          WHERE c.status IN ('active', 'retired') AND c.not_after IS NOT NULL
            AND c.not_after <= now() + make_interval(days => $1)
            AND c.not_after > now() - make_interval(days => $2)
          ORDER BY c.id`,
        [this.config.caExpiryAlertDays[0], EXPIRED_LOOKBACK_DAYS],
      );
      const records: { ca_id: string; threshold_days: number }[] = [];
      const announce = new Map<string, number>();
      for (const row of rows) {
        const due = expiryWarningsDue(row.not_after, row.db_now, this.config.caExpiryAlertDays, row.sent);
        for (const days of due.record) records.push({ ca_id: row.id, threshold_days: days });
        if (due.announce !== null) announce.set(row.id, due.announce);
      }
      if (records.length === 0) return 0;
      const inserted: { ca_id: string; threshold_days: number }[] = await manager.query(
        `INSERT INTO ca_expiry_alerts (ca_id, not_after, threshold_days)
         SELECT given.ca_id, c.not_after, given.threshold_days
           FROM unnest($1::text[], $2::int[]) AS given(ca_id, threshold_days)
           JOIN ca_certificates c ON c.id = given.ca_id
         ON CONFLICT DO NOTHING
         RETURNING ca_id, threshold_days`,
        [records.map((r) => r.ca_id), records.map((r) => r.threshold_days)],
      );
      const recorded = new Set(inserted.map((row) => `${row.ca_id}\u0000${row.threshold_days}`));
      const warnings = rows
        .filter((row) => recorded.has(`${row.id}\u0000${announce.get(row.id)}`))
        .map((row): CaExpiryWarning => ({
          ca_id: row.id,
          issuer_id: row.issuer_id,
          subject: row.subject,
          status: row.status,
          issuing: row.issuing,
          root: row.root,
          not_after: row.not_after.toISOString(),
          threshold_days: announce.get(row.id)!,
          days_remaining: daysRemaining(row.not_after, row.db_now),
        }));
      await this.outbox.addMany(manager, 'issuance.v1.ca.expiry-warning', warnings);
      return warnings.length;
    });
  }
}
