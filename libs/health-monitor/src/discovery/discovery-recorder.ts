import { X509Certificate } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { DiscoverySource, ServedCertificate } from '@certlane/contracts';
import { outboxToken, ServiceOutbox } from '@certlane/platform';
import { EntityManager } from 'typeorm';
import { nextPresence } from '@certlane/health-monitor-domain';
import { returning } from '../health-checks/health-check.repository';
import { MONITOR_CLOCK, MonitorClock } from '../health-checks/monitor-clock';

type Executor = Pick<EntityManager, 'query'>;

/** A certificate found somewhere: its leaf (public) and the chain it came with. */
export interface FoundCertificate {
  fingerprint: string;
  subject: string;
  issuer: string;
  notBefore: Date;
  notAfter: Date;
  chain: ServedCertificate[];
  /** The leaf itself, kept so a claim can import it; null when the finder did not have it. */
  leafPem: string | null;
}

/** Where it was found: `network:<host>:<port>`, `agent:<agent id>:<path>`, `cloud:<provider>:<name>`. */
export interface Sighting {
  location: string;
  source: DiscoverySource;
  scanId: string | null;
}

/**
 * The scope a complete run covers: a scan target's scans, or one agent's (`agent:<id>:`) or one
 * cloud sentinel's (`cloud:<sentinel>:`) locations.
 */
export type RunScope = { kind: 'scan-target'; targetId: string } | { kind: 'agent' | 'cloud'; owner: string };

const colonless = (fingerprint: string) => fingerprint.replaceAll(':', '').toLowerCase();
const dn = (name: string) => name.split('\n').filter(Boolean).join(', ');

/** The PEM text of a DER certificate, 64 characters a line. */
export function derToPem(der: Buffer): string {
  const body = der.toString('base64').replace(/.{64}/g, '$&\n').replace(/\n?$/, '\n');
  return `-----BEGIN CERTIFICATE-----\n${body}-----END CERTIFICATE-----\n`;
}

/**
 * A certificate as found outside a TLS handshake (an agent's file, a cloud secret): parsed, and
 * re-encoded from its DER, so nothing but the certificate itself is ever stored.
 */
export function foundFromPem(pem: string): FoundCertificate {
  const x509 = new X509Certificate(pem);
  const served: ServedCertificate = {
    subject: dn(x509.subject),
    issuer: dn(x509.issuer),
    fingerprint_sha256: colonless(x509.fingerprint256),
    not_before: new Date(x509.validFrom).toISOString(),
    not_after: new Date(x509.validTo).toISOString(),
  };
  return {
    fingerprint: served.fingerprint_sha256,
    subject: served.subject,
    issuer: served.issuer,
    notBefore: new Date(served.not_before),
    notAfter: new Date(served.not_after),
    chain: [served],
    leafPem: derToPem(x509.raw),
  };
}

/**
 * Stores a discovered certificate and where it was seen (ADR 0057, 0063), for every source:
 * deduplicated by fingerprint; a new one is Unmanaged; re-discovery only moves last_seen (the
 * status machine's `rediscover` changes nothing), makes a gone certificate present again
 * (nextPresence 'seen') and fills in a leaf PEM not kept before.
 * A first sighting also writes `health-monitor.v1.discovered-certificate.found` to the outbox in
 * the caller's transaction (the notifier's `discovery.found`). Answers whether the certificate was
 * new.
 */
@Injectable()
export class DiscoveryRecorder {
  constructor(
    @Inject(MONITOR_CLOCK) private readonly clock: MonitorClock,
    @Inject(outboxToken('health-monitor')) private readonly outbox: ServiceOutbox,
  ) {}

  async record(executor: Executor, found: FoundCertificate, sighting: Sighting): Promise<boolean> {
    const now = this.clock.now();
    const [{ inserted }] = await executor.query(
      `INSERT INTO discovered_certificates (fingerprint, subject, issuer, not_before, not_after, chain, first_seen_at, last_seen_at, certificate_pem)
       VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $7, $8)
       ON CONFLICT (fingerprint) DO UPDATE SET last_seen_at = EXCLUDED.last_seen_at, gone_at = NULL,
         certificate_pem = COALESCE(discovered_certificates.certificate_pem, EXCLUDED.certificate_pem)
       RETURNING (xmax = 0) AS inserted`,
      [
        found.fingerprint,
        found.subject,
        found.issuer,
        found.notBefore,
        found.notAfter,
        JSON.stringify(found.chain),
        now,
        found.leafPem,
      ],
    );
    await executor.query(
      `INSERT INTO discovered_certificate_sightings (fingerprint, location, source, scan_id, first_seen_at, last_seen_at)
       VALUES ($1, $2, $3, $4, $5, $5)
       ON CONFLICT (fingerprint, location) DO UPDATE SET last_seen_at = EXCLUDED.last_seen_at, scan_id = EXCLUDED.scan_id,
         gone_at = NULL`,
      [found.fingerprint, sighting.location, sighting.source, sighting.scanId, now],
    );
    if (inserted !== true) return false;
    await this.outbox.add(executor, 'health-monitor.v1.discovered-certificate.found', {
      fingerprint: found.fingerprint,
      subject: found.subject,
      issuer: found.issuer,
      not_before: found.notBefore.toISOString(),
      not_after: found.notAfter.toISOString(),
      location: sighting.location,
      source: sighting.source,
      scan_id: sighting.scanId,
      found_at: now.toISOString(),
    });
    return true;
  }

  /**
   * After a complete run of a scope: every present sighting of that scope the run did not record
   * (its scan_id is not the run's) is gone, and so is each certificate left with no present
   * sighting (ADR 0063). Answers how many certificates became gone. Call only for a run that
   * completed: a failed or partial run proves nothing about what it did not reach.
   */
  async markGone(executor: Executor, scope: RunScope, runId: string): Promise<number> {
    const now = this.clock.now();
    const where =
      scope.kind === 'scan-target'
        ? // A sighting another scan of the target recorded after this one started (scans may
          // overlap, ADR 0057) was seen since: not gone.
          `source = 'network' AND scan_id IN (SELECT id FROM network_scans WHERE target_id = $3)
           AND last_seen_at < (SELECT started_at FROM network_scans WHERE id = $2)`
        : `source = '${scope.kind}' AND starts_with(location, $3)`;
    const missed = returning<{ fingerprint: string }>(
      await executor.query(
        `UPDATE discovered_certificate_sightings SET gone_at = $1
         WHERE gone_at IS NULL AND scan_id IS DISTINCT FROM $2 AND ${where} RETURNING fingerprint`,
        [now, runId, scope.kind === 'scan-target' ? scope.targetId : `${scope.kind}:${scope.owner}:`],
      ),
    );
    if (missed.length === 0) return 0;
    const rows: { fingerprint: string; present_elsewhere: boolean }[] = await executor.query(
      `SELECT fingerprint, bool_or(gone_at IS NULL) AS present_elsewhere FROM discovered_certificate_sightings
       WHERE fingerprint = ANY($1) GROUP BY fingerprint`,
      [[...new Set(missed.map((row) => row.fingerprint))]],
    );
    const gone = rows
      .filter(
        (row) =>
          nextPresence('present', {
            kind: 'missed',
            runComplete: true,
            presentElsewhere: row.present_elsewhere,
          }) === 'gone',
      )
      .map((row) => row.fingerprint);
    const marked = returning<{ fingerprint: string }>(
      await executor.query(
        `UPDATE discovered_certificates SET gone_at = $2 WHERE fingerprint = ANY($1) AND gone_at IS NULL
         RETURNING fingerprint`,
        [gone, now],
      ),
    );
    return marked.length;
  }
}
