// Diagnostics only (BENCH_HOPS=1): stands in for the issuance service on
// issuance.v1.get-renewal-policy, answering every request with one pre-encoded reply (the policy
// the real service returned), with no validation and no database. Run against the same gateway,
// it isolates gateway + NATS cost from issuance + Postgres cost.
//
//   STUB_NATS_URL=nats://127.0.0.1:4222 STUB_NAMESPACE=ns STUB_REPLY='{"ok":true,"data":{...}}' node stub-issuance.mjs
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { connect } = require('nats');

const namespace = process.env.STUB_NAMESPACE ?? '';
const subject = `${namespace ? `${namespace}.` : ''}issuance.v1.get-renewal-policy`;
const reply = new TextEncoder().encode(process.env.STUB_REPLY ?? '{"ok":true,"data":null}');

const nc = await connect({
  servers: (process.env.STUB_NATS_URL ?? 'nats://127.0.0.1:4222').split(','),
  name: 'bench-stub-issuance',
});
nc.subscribe(subject, { queue: 'issuance', callback: (error, message) => error || message.respond(reply) });
await nc.flush();
process.stdout.write('STUB_READY\n');

const shutdown = async () => {
  await nc.drain().catch(() => nc.close());
  process.exit(0);
};
process.once('SIGTERM', () => void shutdown());
process.once('SIGINT', () => void shutdown());
