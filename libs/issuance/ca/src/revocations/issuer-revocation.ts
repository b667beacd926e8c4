import { Inject, Injectable } from '@nestjs/common';
import {
  AuditAction,
  CertificateRevoked,
  CertlaneError,
  ErrorCode,
  RequestContext,
  RevocationReason,
  RevokeCertificateRequest,
  SerialRevoked,
} from '@certlane/contracts';
import { releasesHold } from '@certlane/issuance-domain';
import { IssuerConnector, isIssuerError, RevokeRequest } from '@certlane/pki';
import { outboxToken, ServiceOutbox } from '@certlane/platform';
import { EntityManager } from 'typeorm';
import { issuerNotFound } from '../issuers/issuer.service';
import { IssuerRepository, IssuerRow } from '../issuers/issuer.repository';
import { CaRepository } from '../local-ca/ca.repository';
import { LocalCaService } from '../local-ca/local-ca.service';
import { auditRecord, UnitOfWork } from '@certlane/issuance-data-access';

/** A serial to revoke at its issuer; `certificate_id` (when given) is carried into its event. */
export interface SerialToRevoke {
  issuer_id: string;
  serial_hex: string;
  certificate_id?: string;
  /** The certificate, when the caller holds it: CAs that revoke by certificate need it (ACME, RFC 8555 7.6). */
  certificate_pem?: string;
}

/** What the issuer step did with one serial. */
export type SerialRevocation =
  | {
      item: SerialToRevoke;
      ok: true;
      created: boolean;
      event: CertificateRevoked;
      /**
       * False when the issuer's kind has no connector (an imported certificate of a remote CA), or
       * its connector cannot revoke or failed to: the revocation is recorded here only and its CA
       * was not told.
       */
      caNotified: boolean;
      /** Why the CA was not told, when its connector tried and failed (ADR 0082). */
      caFailure?: string;
    }
  | { item: SerialToRevoke; ok: false; error: CertlaneError };

export interface RevokeSerialsOptions {
  /**
   * Serials revoked all or none (bulk revoke: a certificate's serials). A serial its issuer
   * refuses keeps the others of its group unrevoked; they are left out of the result.
   */
  group?: (item: SerialToRevoke) => string;
}

const notIssued = (issuerId: string, serial: string) =>
  new CertlaneError(
    ErrorCode.CertificateNotFound,
    `issuer ${issuerId} issued no certificate with serial ${serial}`,
  );

/** The serials of one issuer, with its connector (none: the kind is recorded locally only). */
interface IssuerBatch {
  issuer: IssuerRow;
  connector: IssuerConnector | null;
  items: SerialToRevoke[];
  /** What was recorded for the issuer's serials, by serial. */
  recorded: Map<string, StoredRevocation>;
  /** The CA's own failure to revoke (IssuerError): the serials are then recorded here only. */
  caFailure?: string;
}

/**
 * Revocation at the issuer (issue 16 point 4, ADR 0046): the one way issuance revokes serials, for
 * the bus `revoke-certificate`, the managed certificate's revoke and bulk (and EST bulk) revoke.
 * In the caller's transaction: every issuer and serial is checked first (an unknown issuer; a
 * serial the issuer's own register says it never issued, `unknownSerials`), then each issuer's
 * serials are revoked through the connector the registry finds for its kind, as one batch when
 * the connector offers `revokeMany`. The local CA is the CA, so its revocation is the record it
 * writes through `recordRevocations` (one statement per issuer); a kind without a connector, or
 * one whose connector records nothing, is recorded locally. A new revocation publishes
 * issuance.v1.certificate.revoked (once per serial); audit records are the caller's.
 */
@Injectable()
export class IssuerRevocation {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly issuers: IssuerRepository,
    private readonly cas: CaRepository,
    private readonly localCa: LocalCaService,
    @Inject(outboxToken('issuance')) private readonly outbox: ServiceOutbox,
  ) {}

  /**
   * The bus `revoke-certificate`: one serial, with its audit record when the revocation is new.
   * `within`, when given, runs in the transaction and calls `revokeSerial` itself, so it can lock
   * what it changes alongside first (the inventory locks the certificate the serial is the current
   * version of before the serial's row, the order of a managed certificate's revoke). With reason
   * removeFromCRL it releases the serial's certificateHold instead (ADR 0037), and refuses a
   * serial that is not on hold.
   */
  async revoke(
    request: RevokeCertificateRequest,
    context?: RequestContext,
    within?: (manager: EntityManager, revokeSerial: () => Promise<SerialRevoked>) => Promise<void>,
  ): Promise<SerialRevoked> {
    const issuer = await this.issuers.find(request.issuer_id);
    if (!issuer) throw issuerNotFound(request.issuer_id);
    if (request.reason && releasesHold(request.reason)) return this.releaseSerialHold(request, context);
    return this.unitOfWork.run(async (manager) => {
      let revoked: SerialRevoked | undefined;
      const revokeSerial = async (): Promise<SerialRevoked> => {
        const [result] = await this.revokeSerials(
          manager,
          [{ issuer_id: issuer.id, serial_hex: request.serial_hex }],
          request.reason ?? 'unspecified',
          context,
        );
        if (!result.ok) throw result.error;
        if (result.created) {
          await this.outbox.audit(
            manager,
            auditRecord(
              'cert_lifecycle',
              'certificate',
              AuditAction.CertificateRevoked,
              request.serial_hex,
              context,
              { issuer_id: issuer.id, reason: result.event.reason, revoked_at: result.event.revoked_at },
            ),
          );
        }
        revoked = { ...result.event, already_revoked: !result.created };
        return revoked;
      };
      if (within) await within(manager, revokeSerial);
      return revoked ?? (await revokeSerial());
    });
  }

  async revokeSerials(
    manager: EntityManager,
    items: readonly SerialToRevoke[],
    reason: RevocationReason,
    context?: RequestContext,
    options: RevokeSerialsOptions = {},
  ): Promise<SerialRevocation[]> {
    // First every check, so that a group with one refused serial has none of its serials revoked.
    const refused = new Map<SerialToRevoke, CertlaneError>();
    const batches: IssuerBatch[] = [];
    for (const [issuerId, group] of byIssuer(items)) {
      const issuer = await this.issuers.find(issuerId, manager);
      if (!issuer) {
        for (const item of group) refused.set(item, issuerNotFound(issuerId));
        continue;
      }
      const recorded = new Map<string, StoredRevocation>();
      const connector = this.localCa.revocationConnector(manager, issuer, (requests) =>
        this.record(manager, issuer.id, requests, reason, recorded),
      );
      const unknown = new Set(
        (await connector?.unknownSerials?.(group.map((item) => item.serial_hex))) ?? [],
      );
      for (const item of group) {
        if (unknown.has(item.serial_hex)) refused.set(item, notIssued(issuerId, item.serial_hex));
      }
      batches.push({ issuer, connector, items: group, recorded });
    }
    const groupOf = options.group;
    const refusedGroups = new Set(groupOf ? [...refused.keys()].map(groupOf) : []);
    const revocable = (item: SerialToRevoke) =>
      !refused.has(item) && !(groupOf && refusedGroups.has(groupOf(item)));

    for (const batch of batches) {
      const requests = batch.items.filter(revocable).map((item): RevokeRequest => ({
        serialNumber: item.serial_hex,
        reason,
        idempotencyKey: `${batch.issuer.id}/${item.serial_hex}`,
        ...(item.certificate_pem ? { certificatePem: item.certificate_pem } : {}),
      }));
      if (requests.length === 0) continue;
      try {
        await revokeThrough(batch.connector, requests);
      } catch (error) {
        // A CA that refuses or cannot be reached does not stop the revocation here: it is
        // recorded, and the caller says the CA was not told and why.
        if (!isIssuerError(error)) throw error;
        batch.caFailure = error.message;
      }
      // A kind without a connector, or a remote CA that keeps no record here: recorded locally.
      const missing = requests.filter((request) => !batch.recorded.has(request.serialNumber));
      if (missing.length > 0) await this.record(manager, batch.issuer.id, missing, reason, batch.recorded);
    }

    const stored = new Map(batches.map((batch) => [batch.issuer.id, batch.recorded]));
    const notified = new Map(
      batches.map((batch) => [batch.issuer.id, batch.connector !== null && batch.caFailure === undefined]),
    );
    const failures = new Map(batches.map((batch) => [batch.issuer.id, batch.caFailure]));
    const results: SerialRevocation[] = [];
    const events: CertificateRevoked[] = [];
    for (const item of items) {
      const error = refused.get(item);
      if (error) {
        results.push({ item, ok: false, error });
        continue;
      }
      const revocation = stored.get(item.issuer_id)?.get(item.serial_hex);
      if (!revocation) continue;
      const event: CertificateRevoked = {
        issuer_id: item.issuer_id,
        serial_hex: item.serial_hex,
        reason: revocation.reason,
        revoked_at: new Date(revocation.revoked_at).toISOString(),
        ...(item.certificate_id === undefined ? {} : { certificate_id: item.certificate_id }),
      };
      if (revocation.created) events.push(event);
      results.push({
        item,
        ok: true,
        created: revocation.created,
        event,
        caNotified: notified.get(item.issuer_id) === true,
        ...(failures.get(item.issuer_id) === undefined ? {} : { caFailure: failures.get(item.issuer_id) }),
      });
    }
    await this.outbox.addMany(manager, 'issuance.v1.certificate.revoked', events, context?.actor_id);
    return results;
  }

  private async releaseSerialHold(
    request: RevokeCertificateRequest,
    context?: RequestContext,
  ): Promise<SerialRevoked> {
    return this.unitOfWork.run(async (manager) => {
      const [released] = await this.releaseHoldsWithin(
        manager,
        [{ issuer_id: request.issuer_id, serial_hex: request.serial_hex }],
        context,
      );
      if (!released) {
        throw new CertlaneError(
          ErrorCode.CertificateNotOnHold,
          `serial ${request.serial_hex} of issuer ${request.issuer_id} is not on hold; removeFromCRL releases a certificateHold`,
        );
      }
      await this.outbox.audit(
        manager,
        auditRecord(
          'cert_lifecycle',
          'certificate',
          AuditAction.CertificateHoldReleased,
          request.serial_hex,
          context,
          { issuer_id: request.issuer_id, released_at: released.revoked_at },
        ),
      );
      return { ...released, already_revoked: false };
    });
  }

  /**
   * Releases the certificateHold of serials inside the caller's transaction (removeFromCRL, ADR
   * 0037): each hold revocation is deleted and issuance.v1.certificate.revoked with reason
   * removeFromCRL is published for it, so the revocation service drops the serial from its CRL
   * and answers good in OCSP. Returns the events of the serials released (those not on hold are
   * left alone). The caller writes the audit record, in its unit of work (UnitOfWork).
   */
  async releaseHoldsWithin(
    manager: EntityManager,
    items: readonly { issuer_id: string; serial_hex: string; certificate_id?: string }[],
    context?: RequestContext,
  ): Promise<CertificateRevoked[]> {
    const releasedAt = new Date().toISOString();
    const events: CertificateRevoked[] = [];
    for (const item of items) {
      if (!(await this.cas.releaseHold(manager, item.issuer_id, item.serial_hex))) continue;
      events.push({
        issuer_id: item.issuer_id,
        serial_hex: item.serial_hex,
        reason: 'removeFromCRL',
        revoked_at: releasedAt,
        ...(item.certificate_id === undefined ? {} : { certificate_id: item.certificate_id }),
      });
    }
    for (const event of events) {
      await this.outbox.add(manager, 'issuance.v1.certificate.revoked', event, context?.actor_id);
    }
    return events;
  }

  /**
   * One statement per issuer; serials already revoked keep their first reason and date, except a
   * certificateHold, which a final reason replaces (recorded as new: its event is published).
   */
  private async record(
    manager: EntityManager,
    issuerId: string,
    requests: RevokeRequest[],
    reason: RevocationReason,
    into: Map<string, StoredRevocation>,
  ): Promise<void> {
    const serials = requests.map((request) => request.serialNumber);
    for (const row of await this.cas.revokeMany(manager, issuerId, serials, reason)) {
      into.set(row.serial_hex, { reason, revoked_at: row.revoked_at, created: true });
    }
    const repeats = serials.filter((serial) => !into.has(serial));
    for (const row of await this.cas.revocations(manager, issuerId, repeats)) {
      into.set(row.serial_hex, { reason: row.reason, revoked_at: row.revoked_at, created: false });
    }
  }
}

async function revokeThrough(connector: IssuerConnector | null, requests: RevokeRequest[]): Promise<void> {
  if (!connector) return;
  if (connector.revokeMany) return connector.revokeMany(requests);
  for (const request of requests) await connector.revoke(request);
}

interface StoredRevocation {
  reason: RevocationReason;
  revoked_at: Date;
  created: boolean;
}

function byIssuer(items: readonly SerialToRevoke[]): Map<string, SerialToRevoke[]> {
  const groups = new Map<string, SerialToRevoke[]>();
  for (const item of items) groups.set(item.issuer_id, [...(groups.get(item.issuer_id) ?? []), item]);
  return groups;
}
