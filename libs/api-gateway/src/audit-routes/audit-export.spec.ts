import { createServer, get, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { AuditEventDto, AuditExportPage, AuditExportPlan, ExportAuditPageRequest } from '@certlane/contracts';
import { eventually } from '@certlane/testing';
import { EXPORT_PAGE_SIZE, streamAuditExport } from './audit-export';

const event = (seq: number, padding = 0): AuditEventDto => ({
  seq,
  event_id: `e-${seq}`,
  service: 'auth',
  action: 'auth.api_key_created',
  event_category: 'auth',
  actor_id: 'alice',
  resource_type: 'api_key',
  resource_id: `key-${seq}`,
  outcome: 'success',
  details: padding ? { padding: 'x'.repeat(padding) } : {},
  occurred_at: new Date(Date.UTC(2026, 0, 1) + seq).toISOString(),
  recorded_at: new Date(Date.UTC(2026, 0, 1) + seq).toISOString(),
  prev_hash: '0'.repeat(64),
  hash: '1'.repeat(64),
});

/** An auth service stand-in over an in-memory list of `total` events, recording what it was asked. */
function source(total: number, padding = 0) {
  const requests: ExportAuditPageRequest[] = [];
  const fetchPage = async (request: ExportAuditPageRequest): Promise<AuditExportPage> => {
    requests.push(request);
    const start = request.after_seq ?? 0;
    const data: AuditEventDto[] = [];
    for (let seq = start + 1; seq <= Math.min(total, start + request.limit); seq += 1)
      data.push(event(seq, padding));
    const last = data[data.length - 1];
    return {
      data,
      next:
        data.length === request.limit && last
          ? { after_occurred_at: last.occurred_at, after_seq: last.seq }
          : null,
    };
  };
  return { requests, fetchPage };
}

const plan = (limit: number): AuditExportPlan => ({
  from: new Date('2026-01-01T00:00:00Z'),
  to: new Date('2026-01-02T00:00:00Z'),
  limit,
  categories: ['auth'],
});

/** A real HTTP server whose one route runs the export; the test reads it with a real client. */
async function serve(handler: (response: ServerResponse) => Promise<unknown>) {
  const outcome: { result?: unknown; error?: unknown } = {};
  let finished!: () => void;
  const done = new Promise<void>((resolve) => (finished = resolve));
  const server: Server = createServer((_request, response) => {
    handler(response)
      .then((result) => (outcome.result = result))
      .catch((error: unknown) => {
        outcome.error = error;
        if (!response.headersSent) response.writeHead(503).end('failed');
      })
      .finally(finished);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return { url, outcome, done, close: () => new Promise((resolve) => server.close(resolve)) };
}

function read(url: string): Promise<{ response: IncomingMessage; body: string }> {
  return new Promise((resolve, reject) => {
    get(url, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ response, body }));
    }).on('error', reject);
  });
}

describe(streamAuditExport.name, () => {
  it('writes one event per line across pages, passing the cursor on, until the window ends', async () => {
    const { requests, fetchPage } = source(1234);
    const server = await serve((response) => streamAuditExport(plan(10_000), fetchPage, response));
    const { response, body } = await read(server.url);
    await server.done;
    await server.close();
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/x-ndjson; charset=utf-8');
    expect(response.headers['cache-control']).toBe('no-store');
    const lines = body.split('\n');
    expect(lines.pop()).toBe('');
    expect(lines.map((line) => (JSON.parse(line) as AuditEventDto).seq)).toEqual(
      Array.from({ length: 1234 }, (_, i) => i + 1),
    );
    expect(server.outcome.result).toBe(1234);
    expect(requests.map((r) => [r.after_seq, r.limit])).toEqual([
      [undefined, EXPORT_PAGE_SIZE],
      [500, 500],
      [1000, 500],
    ]);
    expect(requests[0]).toEqual({
      from: '2026-01-01T00:00:00.000Z',
      to: '2026-01-02T00:00:00.000Z',
      categories: ['auth'],
      limit: 500,
    });
  });

  it('stops at the limit and asks only for what the limit leaves', async () => {
    const { requests, fetchPage } = source(5000);
    const server = await serve((response) => streamAuditExport(plan(700), fetchPage, response));
    const { body } = await read(server.url);
    await server.done;
    await server.close();
    expect(body.trim().split('\n')).toHaveLength(700);
    expect(requests.map((r) => r.limit)).toEqual([500, 200]);
  });

  it('answers an empty window with 200 and no lines', async () => {
    const { fetchPage } = source(0);
    const server = await serve((response) => streamAuditExport(plan(10), fetchPage, response));
    const { response, body } = await read(server.url);
    await server.done;
    await server.close();
    expect([response.statusCode, body]).toEqual([200, '']);
  });

  it('fetches the first page before the status line, so an early failure is a proper error', async () => {
    const failing = async (): Promise<AuditExportPage> => {
      throw new Error('auth is down');
    };
    const server = await serve((response) => streamAuditExport(plan(10), failing, response));
    const { response, body } = await read(server.url);
    await server.done;
    await server.close();
    expect([response.statusCode, body]).toEqual([503, 'failed']);
  });

  it('waits for a reader that stops: no page is fetched beyond one ahead of the blocked write', async () => {
    const { requests, fetchPage } = source(100_000, 2000);
    let serverResponse: ServerResponse | undefined;
    const server = await serve((response) => {
      serverResponse = response;
      return streamAuditExport(plan(100_000), fetchPage, response);
    });
    let received = 0;
    let paused!: IncomingMessage;
    await new Promise<void>((resolve, reject) => {
      get(server.url, (response) => {
        paused = response;
        response.once('data', (chunk: Buffer) => {
          received += chunk.length;
          response.pause();
          resolve();
        });
      }).on('error', reject);
    });
    // The writer is blocked on 'drain' while the client does not read...
    await eventually(() => serverResponse?.writableNeedDrain === true, 'the export to wait for drain');
    const asked = requests.length;
    // ...having asked for a handful of the 200 pages: what the socket buffers hold, plus one.
    expect(asked).toBeLessThan(20);
    paused.on('data', (chunk: Buffer) => (received += chunk.length));
    const ended = new Promise((resolve) => paused.on('end', resolve));
    paused.resume();
    await ended;
    await server.done;
    await server.close();
    expect(requests).toHaveLength(200);
    expect(server.outcome.result).toBe(100_000);
    expect(received).toBeGreaterThan(100_000 * 2000);
  });

  it('stops asking for pages when the client goes away', async () => {
    const { requests, fetchPage } = source(100_000, 2000);
    const server = await serve((response) => streamAuditExport(plan(100_000), fetchPage, response));
    await new Promise<void>((resolve) => {
      const request = get(server.url, (response) => {
        response.once('data', () => {
          request.destroy();
          resolve();
        });
      });
      request.on('error', () => undefined);
    });
    await server.done;
    await server.close();
    expect(server.outcome.error).toBeUndefined();
    expect(server.outcome.result).toBeLessThan(100_000);
    expect(requests.length).toBeLessThan(10);
  });
});
