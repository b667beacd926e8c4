import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request } from 'node:https';
import {
  AuditChainVerification,
  AuditEventDto,
  chainAuditEvents,
  UnchainedAuditEvent,
} from '@certlane/contracts';
import { httpsRequest, startTestSystem, TestSystem } from '@certlane/testing';
import { Client } from 'pg';

const TOTAL = 100_000;
const BATCH = 2000;
/** About 2.2 KiB per line: the whole export (~210 MiB) is more than twice the memory bound below. */
const PADDING = 'p'.repeat(1700);
/**
 * The gateway's RSS growth while streaming: about 30 MiB on a quiet machine, up to ~70 MiB when
 * the whole suite shares the 2 cores (garbage is collected later); holding the export would
 * exceed it by far (without backpressure: 144 MiB of a 145 MiB export).
 */
const RSS_GROWTH_BOUND = 96 * 1024 * 1024;

/** Resident set size of a process, from /proc/<pid>/status (bytes). */
function rssOf(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!match) throw new Error(`no VmRSS for ${pid}`);
  return Number(match[1]) * 1024;
}

/** Writes TOTAL chained events straight into the table, in batches, the way the store chains them. */
async function insertChain(db: Client, start: Date): Promise<void> {
  let head: { seq: number; hash: string } | undefined;
  for (let offset = 0; offset < TOTAL; offset += BATCH) {
    const events: UnchainedAuditEvent[] = [];
    for (let i = offset; i < Math.min(TOTAL, offset + BATCH); i += 1) {
      const time = new Date(start.getTime() + i * 10).toISOString();
      events.push({
        event_id: randomUUID(),
        service: 'issuance',
        action: 'certificate.renewed',
        event_category: i % 2 === 0 ? 'cert_lifecycle' : 'config',
        actor_id: `actor-${i % 17}`,
        resource_type: 'certificate',
        resource_id: `cert-${i}`,
        outcome: 'success',
        request_id: `req-${i}`,
        details: { n: i, padding: PADDING },
        occurred_at: time,
        recorded_at: time,
      });
    }
    const chained = chainAuditEvents(head, events);
    head = chained[chained.length - 1];
    const column = (key: keyof AuditEventDto) =>
      chained.map((e) => (key === 'details' ? JSON.stringify(e.details) : (e[key] ?? null)));
    await db.query(
      `INSERT INTO auth.audit_events (seq, event_id, service, action, event_category, actor_id, resource_type,
         resource_id, outcome, request_id, details, occurred_at, recorded_at, prev_hash, hash)
       SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
         $8::text[], $9::text[], $10::text[], $11::jsonb[], $12::timestamptz[], $13::timestamptz[], $14::text[], $15::text[])`,
      (
        [
          'seq',
          'event_id',
          'service',
          'action',
          'event_category',
          'actor_id',
          'resource_type',
          'resource_id',
          'outcome',
          'request_id',
          'details',
          'occurred_at',
          'recorded_at',
          'prev_hash',
          'hash',
        ] as const
      ).map(column),
    );
  }
}

/** Spec 4.10, 8: an export of 100k events streams through the gateway with flat memory. */
describe('audit export of 100k events', () => {
  let system: TestSystem;
  let db: Client;
  let from: string;
  let to: string;

  const auth = () => ({ authorization: `Bearer ${system.env.SERVICE_AUTH_SECRET}` });

  beforeAll(async () => {
    system = await startTestSystem('auditstream', ['auth', 'api-gateway']);
    db = new Client({ connectionString: system.database.url });
    await db.connect();
    const start = new Date(Date.now() - 3600_000);
    await insertChain(db, start);
    from = start.toISOString();
    to = new Date(start.getTime() + TOTAL * 10).toISOString();
  }, 180_000);

  afterAll(async () => {
    await db?.end();
    await system?.stop();
  });

  /** Export pages the auth service has served, from its own /metrics. */
  async function pagesServed(): Promise<number> {
    const metrics = await httpsRequest(`${system.services.auth.url}/metrics`, { ca: system.ca });
    const match =
      /certlane_bus_requests_handled_total\{[^}]*subject="auth\.v1\.export-audit-page"[^}]*outcome="ok"[^}]*\} (\d+)/.exec(
        metrics.text,
      );
    return match ? Number(match[1]) : 0;
  }

  it('streams every event to a slow reader while the gateway RSS stays flat', async () => {
    const gateway = system.services['api-gateway'];
    const pid = gateway.child.pid!;
    const url = `${gateway.url}/api/v1/audit/export?from=${from}&to=${to}&limit=${TOTAL}`;
    // Warm up the route (JIT, TLS, first allocations) before taking the baseline.
    const warm = await httpsRequest(`${gateway.url}/api/v1/audit/export?from=${from}&to=${to}&limit=2000`, {
      ca: system.ca,
      headers: auth(),
    });
    expect(warm.status).toBe(200);
    const baseline = rssOf(pid);
    let peak = baseline;
    const sampler = setInterval(() => (peak = Math.max(peak, rssOf(pid))), 50);
    const pagesBefore = await pagesServed();
    let pagesDuringStall = 0;

    let lines = 0;
    let bytes = 0;
    let lastSeq = 0;
    let ordered = true;
    let status = 0;
    let contentType: string | undefined;
    try {
      await new Promise<void>((resolve, reject) => {
        const req = request(
          url,
          { ca: system.ca, headers: auth(), minVersion: 'TLSv1.3', agent: false },
          (res) => {
            status = res.statusCode ?? 0;
            contentType = res.headers['content-type'];
            let rest = '';
            let sinceBreak = 0;
            let stalled = false;
            res.setEncoding('utf8');
            res.on('data', (chunk: string) => {
              bytes += Buffer.byteLength(chunk);
              sinceBreak += chunk.length;
              const parts = (rest + chunk).split('\n');
              rest = parts.pop() ?? '';
              for (const line of parts) {
                const event = JSON.parse(line) as AuditEventDto;
                if (event.seq <= lastSeq) ordered = false;
                lastSeq = event.seq;
                lines += 1;
              }
              if (!stalled) {
                // First, a reader that stops: 8 s without reading, or until the gateway has
                // pulled 120 pages (a third of the export) regardless, which only a gateway that
                // ignores backpressure does.
                stalled = true;
                res.pause();
                void (async () => {
                  const until = Date.now() + 8000;
                  while (Date.now() < until && (await pagesServed()) - pagesBefore < 120) {
                    await new Promise((r) => setTimeout(r, 200));
                  }
                  pagesDuringStall = (await pagesServed()) - pagesBefore;
                  res.resume();
                })().catch(reject);
              } else if (sinceBreak >= 512 * 1024) {
                // Then a slow one: a 40 ms break after every 512 KiB.
                sinceBreak = 0;
                res.pause();
                setTimeout(() => res.resume(), 40);
              }
            });
            res.on('end', () =>
              rest === '' ? resolve() : reject(new Error(`trailing partial line: ${rest.slice(0, 80)}`)),
            );
            res.on('error', reject);
          },
        );
        req.on('error', reject);
        req.end();
      });
    } finally {
      clearInterval(sampler);
    }

    expect(status).toBe(200);
    expect(contentType).toBe('application/x-ndjson; charset=utf-8');
    expect(lines).toBe(TOTAL);
    expect(ordered).toBe(true);
    // While the reader stalled, the gateway fetched only what the socket buffers hold, plus one page.
    expect(pagesDuringStall).toBeGreaterThan(0);
    expect(pagesDuringStall).toBeLessThan(40);
    // The export was far larger than the bound, so holding it would have shown.
    expect(bytes).toBeGreaterThan(2 * RSS_GROWTH_BOUND);
    expect(peak - baseline).toBeLessThan(RSS_GROWTH_BOUND);
  }, 240_000);

  it('verifies the 100k chain in batches', async () => {
    const response = await httpsRequest(`${system.services['api-gateway'].url}/api/v1/audit/verify`, {
      ca: system.ca,
      headers: auth(),
    });
    expect(response.status).toBe(200);
    expect(response.json() as AuditChainVerification).toEqual({ ok: true, checked: TOTAL });
  }, 120_000);
});
