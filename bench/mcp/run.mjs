#!/usr/bin/env node
// MCP bench (issue 17): tool listing latency and one read-tool call (getRenewalPolicy) through the
// MCP server over stdio and over Streamable HTTP (TLS 1.3), driven by the MCP SDK's own client,
// against the same API call made directly with ApiClient in the same run. The three are
// interleaved call by call, so all see the same machine. See bench/README.md. Run with
// `npm run bench:mcp` (builds first).
//
// Environment switches (all optional):
//   BENCH_CALLS=500        measured read calls per path     BENCH_LIST_CALLS=100  measured listings per transport
//   BENCH_WARMUP_CALLS=50  unmeasured calls first (each kind)
//   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres  BENCH_NATS_URL=nats://127.0.0.1:4222
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { Agent as HttpsAgent, request } from 'node:https';
import { createRequire } from 'node:module';
import os from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Agent, fetch as undiciFetch } from 'undici';
import {
  cleanups,
  createBenchCertificate,
  log,
  percentile,
  positiveNumberEnv,
  ROOT,
  round,
  runBench,
  startProcess,
} from '../lib/harness.mjs';
import { benchSystem, RESULTS_DIR, startService } from '../lib/services.mjs';

const require = createRequire(import.meta.url);
const MAIN = join(ROOT, 'dist', 'apps', 'mcp-server', 'src', 'main.js');

const settings = {
  calls: Math.round(positiveNumberEnv('BENCH_CALLS', 500)),
  listCalls: Math.round(positiveNumberEnv('BENCH_LIST_CALLS', 100)),
  warmupCalls: Math.round(positiveNumberEnv('BENCH_WARMUP_CALLS', 50)),
  databaseServerUrl: process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres',
  natsUrl: process.env.BENCH_NATS_URL || 'nats://127.0.0.1:4222',
};

const stats = (samples) => {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    n: sorted.length,
    p50_ms: round(percentile(sorted, 50), 3),
    p99_ms: round(percentile(sorted, 99), 3),
    max_ms: round(sorted[sorted.length - 1], 3),
  };
};

const timed = async (fn) => {
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
};

async function main() {
  const { ApiClient, HttpsJsonClient } = require(join(ROOT, 'dist', 'libs', 'api-client', 'src', 'index.js'));
  const system = await benchSystem(settings);
  for (const app of ['auth', 'issuance']) await startService(system, app);
  const gateway = await startService(system, 'api-gateway');
  const tmp = join(os.tmpdir(), `certlane-bench-mcp-${process.pid}`);
  mkdirSync(tmp, { recursive: true, mode: 0o700 });
  cleanups.push([`temp dir ${tmp}`, () => rmSync(tmp, { recursive: true, force: true })]);
  writeFileSync(join(tmp, 'ca.pem'), system.ca);

  const admin = new HttpsJsonClient({
    baseUrl: gateway.url,
    apiKey: system.env.SERVICE_AUTH_SECRET,
    caBundle: system.ca,
  });
  const { key } = await new ApiClient(admin).call('createApiKey', {
    body: { name: 'mcp-bench', role_ids: ['r-mcp'] },
  });
  const policy = await new ApiClient(admin).call('createRenewalPolicy', {
    body: { name: 'mcp-bench', max_retries: 1 },
  });
  admin.close();
  writeFileSync(join(tmp, 'key'), key, { mode: 0o600 });

  const direct = new HttpsJsonClient({ baseUrl: gateway.url, apiKey: key, caBundle: system.ca });
  cleanups.push(['direct client', () => direct.close()]);
  const api = new ApiClient(direct);
  const common = { SERVICE_SERVER_URL: gateway.url, SERVICE_SERVER_CA_BUNDLE_PATH: join(tmp, 'ca.pem') };

  const stdio = new Client({ name: 'bench', version: '1' });
  await stdio.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [MAIN],
      env: { PATH: process.env.PATH ?? '', ...common, SERVICE_API_KEY_FILE: join(tmp, 'key') },
    }),
  );
  cleanups.push(['stdio MCP client', () => stdio.close()]);

  const mcpTls = createBenchCertificate();
  let listening;
  await startProcess(
    'mcp-server (http)',
    MAIN,
    {
      ...common,
      SERVICE_MCP_TRANSPORT: 'http',
      SERVICE_MCP_PORT: '0',
      SERVICE_MCP_TLS_CERT_PATH: mcpTls.certPath,
      SERVICE_MCP_TLS_KEY_PATH: mcpTls.keyPath,
    },
    async (proc) => (listening = /listening on (https:\/\/\S+\/mcp)/.exec(proc.output())?.[1]) !== undefined,
  );
  const dispatcher = new Agent({ connect: { ca: mcpTls.ca } });
  const http = new Client({ name: 'bench', version: '1' });
  const httpTransport = new StreamableHTTPClientTransport(new URL(listening), {
    requestInit: { headers: { authorization: `Bearer ${key}` } },
    fetch: (input, init) => undiciFetch(input, { ...init, dispatcher }),
  });
  await http.connect(httpTransport);
  cleanups.push([
    'HTTP MCP client',
    async () => {
      await httpTransport.terminateSession();
      await http.close();
      await dispatcher.close();
    },
  ]);

  // The same tools/call as one plain keep-alive HTTPS POST on the HTTP client's session: the
  // server's share of the HTTP path, without the SDK client and fetch.
  const rawAgent = new HttpsAgent({ keepAlive: true, maxSockets: 1, ca: mcpTls.ca, minVersion: 'TLSv1.3' });
  cleanups.push(['raw HTTPS agent', () => rawAgent.destroy()]);
  let rpcId = 0;
  const rawCall = () =>
    new Promise((resolve, reject) => {
      const body = JSON.stringify({
        jsonrpc: '2.0',
        id: ++rpcId,
        method: 'tools/call',
        params: { name: 'getRenewalPolicy', arguments: { id: policy.id } },
      });
      const req = request(
        listening,
        {
          method: 'POST',
          agent: rawAgent,
          headers: {
            authorization: `Bearer ${key}`,
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'mcp-session-id': httpTransport.sessionId,
          },
        },
        (res) => {
          const chunks = [];
          res.on('data', (chunk) => chunks.push(chunk));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString();
            if (res.statusCode !== 200 || text.includes('"isError":true'))
              reject(new Error(`raw call: ${res.statusCode} ${text}`));
            else resolve();
          });
        },
      );
      req.on('error', reject);
      req.end(body);
    });

  const read = {
    direct: () => api.call('getRenewalPolicy', { path: { id: policy.id } }),
    stdio: async () =>
      check(await stdio.callTool({ name: 'getRenewalPolicy', arguments: { id: policy.id } })),
    http: async () => check(await http.callTool({ name: 'getRenewalPolicy', arguments: { id: policy.id } })),
    http_raw: rawCall,
  };
  const list = {
    stdio: async () => count(await stdio.listTools()),
    http: async () => count(await http.listTools()),
  };
  let tools = 0;
  const count = (listed) => {
    tools = listed.tools.length;
    if (tools < 121) throw new Error(`only ${tools} tools listed`);
  };
  const check = (result) => {
    if (result.isError) throw new Error(`tool error: ${result.content[0]?.text}`);
  };

  log(`warm-up: ${settings.warmupCalls} calls of each kind`);
  for (let i = 0; i < settings.warmupCalls; i++)
    for (const fn of [...Object.values(read), ...Object.values(list)]) await fn();

  log(`measuring ${settings.calls} read calls per path, interleaved`);
  const readMs = { direct: [], stdio: [], http: [], http_raw: [] };
  for (let i = 0; i < settings.calls; i++)
    for (const [name, fn] of Object.entries(read)) readMs[name].push(await timed(fn));
  log(`measuring ${settings.listCalls} listings per transport, interleaved`);
  const listMs = { stdio: [], http: [] };
  for (let i = 0; i < settings.listCalls; i++)
    for (const [name, fn] of Object.entries(list)) listMs[name].push(await timed(fn));
  const listingBytes = JSON.stringify((await stdio.listTools()).tools).length;

  const reads = Object.fromEntries(Object.entries(readMs).map(([name, samples]) => [name, stats(samples)]));
  const listings = Object.fromEntries(
    Object.entries(listMs).map(([name, samples]) => [name, stats(samples)]),
  );
  const summary = {
    bench: 'mcp',
    timestamp: new Date().toISOString(),
    tools,
    listing_bytes: listingBytes,
    read_call: reads,
    read_call_added_p50_ms: {
      stdio: round(reads.stdio.p50_ms - reads.direct.p50_ms, 3),
      http: round(reads.http.p50_ms - reads.direct.p50_ms, 3),
      http_raw: round(reads.http_raw.p50_ms - reads.direct.p50_ms, 3),
    },
    tool_listing: listings,
    loadavg_1m: round(os.loadavg()[0], 2),
    node_version: process.version,
    cpu_count: os.cpus().length,
    pass: true,
  };
  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = join(RESULTS_DIR, `mcp-${summary.timestamp.replace(/[:.]/g, '-')}.json`);
  writeFileSync(
    file,
    JSON.stringify({ settings: { ...settings }, summary, samples: { readMs, listMs } }, null, 2),
  );
  const line = (label, s) => `${label}: p50 ${s.p50_ms} ms, p99 ${s.p99_ms} ms (n=${s.n})`;
  console.log(
    [
      `MCP bench (${tools} tools, listing ${listingBytes} bytes; load average ${summary.loadavg_1m} on ${summary.cpu_count} CPUs):`,
      `  ${line('getRenewalPolicy via ApiClient (baseline)', reads.direct)}`,
      `  ${line('getRenewalPolicy tool over stdio', reads.stdio)} -> +${summary.read_call_added_p50_ms.stdio} ms p50`,
      `  ${line('getRenewalPolicy tool over HTTP', reads.http)} -> +${summary.read_call_added_p50_ms.http} ms p50`,
      `  ${line('the same tools/call as a plain HTTPS POST (no SDK client)', reads.http_raw)} -> +${summary.read_call_added_p50_ms.http_raw} ms p50`,
      `  ${line('tools/list over stdio', listings.stdio)}`,
      `  ${line('tools/list over HTTP', listings.http)}`,
      `Results: ${file}`,
      `BENCH_RESULT ${JSON.stringify(summary)}`,
    ].join('\n'),
  );
  return summary;
}

await runBench(main, false);
