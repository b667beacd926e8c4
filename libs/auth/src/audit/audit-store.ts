import { Injectable } from '@nestjs/common';
import {
  AuditChainVerification,
  AuditChainVerifier,
  AuditEventDto,
  AuditExportPage,
  chainAuditEvents,
  ExportAuditPageRequest,
  ListAuditEventsRequest,
  Page,
  parseAuditCategories,
  resolvePage,
} from '@certlane/contracts';
import { AuditEntry } from './audit-entry';
import { AuditEventRepository } from './audit-event.repository';

/** An export page stays well under the NATS payload limit (1 MiB by default). */
const EXPORT_PAGE_MAX_BYTES = 512 * 1024;
/** Rows the verify walk holds at a time. */
const VERIFY_BATCH = 1000;

/**
 * The append-only, hash-chained audit log of every service (spec 6.1). Appends take a
 * transaction advisory lock, so replicas of the auth service extend one chain, never two.
 */
@Injectable()
export class AuditStore {
  constructor(private readonly repository: AuditEventRepository) {}

  /**
   * Appends entries whose event id is not stored yet (a redelivered envelope is skipped);
   * returns how many were appended.
   */
  async append(entries: AuditEntry[], now: Date = new Date()): Promise<number> {
    if (entries.length === 0) return 0;
    const recordedAt = now.toISOString();
    return this.repository.transaction(async (manager) => {
      await this.repository.lockChain(manager);
      const stored = await this.repository.existingEventIds(
        manager,
        entries.map((entry) => entry.event_id),
      );
      const fresh = entries.filter((entry) => {
        if (stored.has(entry.event_id)) return false;
        stored.add(entry.event_id);
        return true;
      });
      if (fresh.length === 0) return 0;
      const head = await this.repository.head(manager);
      const chained = chainAuditEvents(
        head,
        fresh.map((entry) => ({ ...entry, recorded_at: recordedAt })),
      );
      await this.repository.insert(manager, chained);
      return chained.length;
    });
  }

  async list(request: ListAuditEventsRequest): Promise<Page<AuditEventDto>> {
    const page = resolvePage(request);
    const { rows, total } = await this.repository.list(
      {
        categories: parseAuditCategories(request.category),
        action: request.action,
        actor_id: request.actor_id,
        resource_type: request.resource_type,
        resource_id: request.resource_id,
        from: request.from,
        to: request.to,
      },
      page,
    );
    return { data: rows, total, page: page.page, per_page: page.per_page };
  }

  /**
   * One page of an export. A page is cut short when its JSON would pass 512 KiB (at least one
   * event always goes), and `next` says where the following page starts.
   */
  async exportPage(request: ExportAuditPageRequest): Promise<AuditExportPage> {
    const rows = await this.repository.exportPage(request);
    let bytes = 0;
    let kept = 0;
    while (kept < rows.length) {
      bytes += Buffer.byteLength(JSON.stringify(rows[kept])) + 1;
      if (kept > 0 && bytes > EXPORT_PAGE_MAX_BYTES) break;
      kept += 1;
    }
    const data = kept === rows.length ? rows : rows.slice(0, kept);
    const more = data.length < rows.length || rows.length === request.limit;
    const last = data[data.length - 1];
    return {
      data,
      next: more && last ? { after_occurred_at: last.occurred_at, after_seq: last.seq } : null,
    };
  }

  /**
   * Walks the chain in seq order, a batch at a time, up to the last event at the start of the
   * walk, and reports the first broken link.
   */
  async verify(): Promise<AuditChainVerification> {
    const maxSeq = await this.repository.maxSeq();
    const verifier = new AuditChainVerifier();
    let after = 0;
    while (after < maxSeq && !verifier.done) {
      const batch = await this.repository.chainBatch(after, maxSeq, VERIFY_BATCH);
      if (batch.length === 0) break;
      for (const event of batch) if (verifier.push(event)) break;
      after = batch[batch.length - 1].seq;
    }
    return verifier.result();
  }
}
