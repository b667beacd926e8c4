import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  AuditAction,
  CertlaneError,
  ContactDto,
  ContactKeyRequest,
  ErrorCode,
  Page,
  PageQuery,
  RequestContext,
  resolvePage,
  SetContactRequest,
} from '@certlane/contracts';
import { MESSAGE_BUS, MessageBus, outboxToken, ServiceOutbox, SqlExecutor } from '@certlane/platform';
import { DataSource } from 'typeorm';
import { notifierAudit } from '../notifier-audit';

/**
 * The notifier.v1.*-contact(s) subjects behind /api/v1/contacts (ADR 0056): the addresses of an
 * owner or a team that email notifiers add as recipients. A PUT replaces them (upsert); each
 * change writes one audit event through the outbox in its transaction.
 */
@Injectable()
export class ContactHandlers implements OnApplicationBootstrap {
  constructor(
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @InjectDataSource('notifier') private readonly dataSource: DataSource,
    @Inject(outboxToken('notifier')) private readonly outbox: ServiceOutbox,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await Promise.all([
      this.bus.handle('notifier.v1.list-contacts', (request) => this.list(request)),
      this.bus.handle('notifier.v1.get-contact', (request) => this.find(this.dataSource, request)),
      this.bus.handle('notifier.v1.set-contact', (request, context) => this.set(request, context)),
      this.bus.handle('notifier.v1.delete-contact', (request, context) => this.remove(request, context)),
    ]);
  }

  private async list(request: PageQuery): Promise<Page<ContactDto>> {
    const page = resolvePage(request);
    const rows = (await this.dataSource.query(
      'SELECT kind, subject_id, addresses FROM contacts ORDER BY kind, subject_id LIMIT $1 OFFSET $2',
      [page.per_page, page.offset],
    )) as ContactDto[];
    const [count] = (await this.dataSource.query('SELECT count(*)::int AS total FROM contacts')) as {
      total: number;
    }[];
    return { data: rows, total: count.total, page: page.page, per_page: page.per_page };
  }

  private async find(executor: SqlExecutor, key: ContactKeyRequest, lock = false): Promise<ContactDto> {
    const rows = (await executor.query(
      `SELECT kind, subject_id, addresses FROM contacts WHERE kind = $1 AND subject_id = $2${lock ? ' FOR UPDATE' : ''}`,
      [key.kind, key.subject_id],
    )) as ContactDto[];
    if (!rows[0])
      throw new CertlaneError(ErrorCode.ContactNotFound, `no contacts for ${key.kind} ${key.subject_id}`);
    return rows[0];
  }

  private async set(request: SetContactRequest, context: RequestContext | undefined): Promise<ContactDto> {
    const addresses = [...new Set(request.addresses.map((address) => address.toLowerCase()))];
    const contact = await this.dataSource.transaction(async (manager) => {
      const [row] = (await manager.query(
        `INSERT INTO contacts (kind, subject_id, addresses) VALUES ($1, $2, $3)
         ON CONFLICT (kind, subject_id) DO UPDATE SET addresses = EXCLUDED.addresses
         RETURNING kind, subject_id, addresses`,
        [request.kind, request.subject_id, addresses],
      )) as ContactDto[];
      await this.outbox.audit(
        manager,
        notifierAudit('contact', AuditAction.ContactSet, `${row.kind}/${row.subject_id}`, context, {
          addresses: addresses.length,
        }),
      );
      return row;
    });
    this.outbox.committed();
    return contact;
  }

  private async remove(key: ContactKeyRequest, context: RequestContext | undefined) {
    await this.dataSource.transaction(async (manager) => {
      const row = await this.find(manager, key, true);
      await manager.query('DELETE FROM contacts WHERE kind = $1 AND subject_id = $2', [
        key.kind,
        key.subject_id,
      ]);
      await this.outbox.audit(
        manager,
        notifierAudit('contact', AuditAction.ContactDeleted, `${row.kind}/${row.subject_id}`, context, {}),
      );
    });
    this.outbox.committed();
    return { subject_id: key.subject_id };
  }
}
