#!/usr/bin/env node
// The floor of the ACME bench (bench/README.md, ## acme): the least a Node.js ACME server that keeps
// its state in Postgres does for one order, measured with the same driver in the same run as
// Certlane and pebble. One process, node:https and node-postgres, no framework: ES256 JWS checked
// (signature, url, nonce, account), nonces single-use in Postgres (unlogged, issued in batches, as
// Certlane does), the account, order, authorization and certificate stored, http-01 fetched from
// the driver's responder, the certificate signed in-process by a P-256 CA with libs/pki, each
// request one statement (finalize and the end of a validation two). It leaves out what Certlane does
// besides: audit records, rate limits, policy, profiles, CAA, inventory and the issuance service.
// It is a measuring stick, not a server: it answers only the requests the driver sends.
//
// Started by bench/acme/run.mjs with FLOOR_PORT, FLOOR_DATABASE_URL, FLOOR_TLS_CERT_PATH,
// FLOOR_TLS_KEY_PATH and FLOOR_HTTP01_PORT; prints "listening" when ready.
import { createHash, createPublicKey, randomBytes, verify } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Agent, get as httpGet } from 'node:http';
import { createServer } from 'node:https';
import { createRequire } from 'node:module';
import { createPki, pki } from '../pki/common.mjs';

const require = createRequire(import.meta.url);
const { Pool } = require('pg');

const env = (name) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
};
const port = Number(env('FLOOR_PORT'));
const http01Port = Number(env('FLOOR_HTTP01_PORT'));
const base = `https://127.0.0.1:${port}`;
const db = new Pool({ connectionString: env('FLOOR_DATABASE_URL'), max: 10 });

const SCHEMA = `
CREATE SCHEMA IF NOT EXISTS acme_floor;
CREATE UNLOGGED TABLE IF NOT EXISTS acme_floor.nonces (nonce text PRIMARY KEY, expires_at timestamptz NOT NULL);
CREATE TABLE IF NOT EXISTS acme_floor.accounts (
  id bigserial PRIMARY KEY, thumbprint text UNIQUE NOT NULL, jwk jsonb NOT NULL,
  status text NOT NULL DEFAULT 'valid', created_at timestamptz NOT NULL DEFAULT now());
CREATE TABLE IF NOT EXISTS acme_floor.orders (
  id bigserial PRIMARY KEY, account_id bigint NOT NULL REFERENCES acme_floor.accounts,
  status text NOT NULL, identifier text NOT NULL, expires_at timestamptz NOT NULL,
  certificate_id bigint, created_at timestamptz NOT NULL DEFAULT now());
CREATE TABLE IF NOT EXISTS acme_floor.authorizations (
  id bigserial PRIMARY KEY, order_id bigint NOT NULL REFERENCES acme_floor.orders,
  account_id bigint NOT NULL, status text NOT NULL, identifier text NOT NULL, token text NOT NULL,
  challenge_status text NOT NULL, validated_at timestamptz);
CREATE INDEX IF NOT EXISTS authorizations_order ON acme_floor.authorizations (order_id);
CREATE TABLE IF NOT EXISTS acme_floor.certificates (
  id bigserial PRIMARY KEY, order_id bigint NOT NULL, account_id bigint NOT NULL, serial text NOT NULL,
  pem text NOT NULL, created_at timestamptz NOT NULL DEFAULT now());`;

/** Statements by name, prepared once per connection by node-postgres. */
const NONCE_SPENT = `spent AS (DELETE FROM acme_floor.nonces WHERE nonce = $1 AND expires_at > now() RETURNING 1)`;
const ACCOUNT = `acct AS (SELECT id FROM acme_floor.accounts WHERE id = $2 AND status = 'valid')`;
const HEAD = `SELECT (SELECT count(*) FROM spent)::int AS nonce_ok, (SELECT count(*) FROM acct)::int AS account_ok`;
const statements = {
  newAccount: `WITH ${NONCE_SPENT},
    a AS (INSERT INTO acme_floor.accounts (thumbprint, jwk) SELECT $2, $3 WHERE EXISTS (SELECT 1 FROM spent)
          ON CONFLICT (thumbprint) DO UPDATE SET thumbprint = EXCLUDED.thumbprint RETURNING id)
    SELECT (SELECT count(*) FROM spent)::int AS nonce_ok, (SELECT id FROM a) AS id`,
  newOrder: `WITH ${NONCE_SPENT}, ${ACCOUNT},
    o AS (INSERT INTO acme_floor.orders (account_id, status, identifier, expires_at)
          SELECT id, 'pending', $3, now() + interval '7 days' FROM acct WHERE EXISTS (SELECT 1 FROM spent)
          RETURNING id, expires_at),
    z AS (INSERT INTO acme_floor.authorizations (order_id, account_id, status, identifier, token, challenge_status)
          SELECT id, $2, 'pending', $3, $4, 'pending' FROM o RETURNING id)
    ${HEAD}, o.id, o.expires_at, z.id AS authz_id FROM (SELECT 1) one LEFT JOIN o ON true LEFT JOIN z ON true`,
  authz: `WITH ${NONCE_SPENT}, ${ACCOUNT}
    ${HEAD}, z.* FROM (SELECT 1) one
    LEFT JOIN acme_floor.authorizations z ON z.id = $3 AND z.account_id = $2 AND EXISTS (SELECT 1 FROM spent)`,
  challenge: `WITH ${NONCE_SPENT}, ${ACCOUNT},
    z AS (UPDATE acme_floor.authorizations SET challenge_status = 'processing'
          WHERE id = $3 AND account_id = $2 AND challenge_status = 'pending'
            AND EXISTS (SELECT 1 FROM spent) AND EXISTS (SELECT 1 FROM acct)
          RETURNING id, identifier, token, challenge_status)
    ${HEAD}, z.* FROM (SELECT 1) one LEFT JOIN z ON true`,
  validated: `WITH z AS (UPDATE acme_floor.authorizations SET status = $2, challenge_status = $2, validated_at = now()
                       WHERE id = $1 AND challenge_status = 'processing' RETURNING order_id)
    UPDATE acme_floor.orders o SET status = CASE WHEN $2 = 'valid' THEN 'ready' ELSE 'invalid' END
    WHERE o.id IN (SELECT order_id FROM z) AND o.status = 'pending'
      AND NOT EXISTS (SELECT 1 FROM acme_floor.authorizations x WHERE x.order_id = o.id AND x.id <> $1 AND x.status <> 'valid')`,
  order: `WITH ${NONCE_SPENT}, ${ACCOUNT}
    ${HEAD}, o.*, (SELECT z.id FROM acme_floor.authorizations z WHERE z.order_id = o.id LIMIT 1) AS authz_id
    FROM (SELECT 1) one LEFT JOIN acme_floor.orders o ON o.id = $3 AND o.account_id = $2 AND EXISTS (SELECT 1 FROM spent)`,
  issued: `WITH c AS (INSERT INTO acme_floor.certificates (order_id, account_id, serial, pem)
                     SELECT $1, $2, $3, $4 FROM acme_floor.orders WHERE id = $1 AND status = 'ready' RETURNING id)
    UPDATE acme_floor.orders SET status = 'valid', certificate_id = c.id FROM c
    WHERE acme_floor.orders.id = $1 AND status = 'ready'
    RETURNING acme_floor.orders.*,
      (SELECT z.id FROM acme_floor.authorizations z WHERE z.order_id = acme_floor.orders.id LIMIT 1) AS authz_id`,
  certificate: `WITH ${NONCE_SPENT}, ${ACCOUNT}
    ${HEAD}, c.pem FROM (SELECT 1) one
    LEFT JOIN acme_floor.certificates c ON c.id = $3 AND c.account_id = $2 AND EXISTS (SELECT 1 FROM spent)`,
};
const query = async (name, values) =>
  (await db.query({ name: `floor_${name}`, text: statements[name], values })).rows[0];

/** Nonces inserted 256 at a time; a request takes one from memory, its spend is one statement. */
const nonces = [];
let refilling = null;
async function refillNonces() {
  const batch = Array.from({ length: 256 }, () => randomBytes(16).toString('base64url'));
  await db.query({
    name: 'floor_nonces',
    text: `INSERT INTO acme_floor.nonces (nonce, expires_at) SELECT n, now() + interval '1 hour' FROM unnest($1::text[]) n`,
    values: [batch],
  });
  nonces.push(...batch);
}
async function freshNonce() {
  if (nonces.length < 64 && !refilling) refilling = refillNonces().finally(() => (refilling = null));
  while (nonces.length === 0) await refilling;
  return nonces.pop();
}

class Problem extends Error {
  constructor(status, type, detail) {
    super(detail);
    this.status = status;
    this.type = `urn:ietf:params:acme:error:${type}`;
  }
}

/** Account keys by account id (Certlane caches them too); the account's status is read per request. */
const keys = new Map();
const b64json = (text) => JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
const thumbprintOf = (jwk) =>
  createHash('sha256')
    .update(JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y }))
    .digest('base64url');

function readJws(body, url) {
  let jws;
  try {
    jws = JSON.parse(body);
  } catch {
    throw new Problem(400, 'malformed', 'the body is not JSON');
  }
  const header = b64json(jws.protected);
  if (header.alg !== 'ES256') throw new Problem(400, 'badSignatureAlgorithm', 'ES256 only');
  if (header.url !== url) throw new Problem(401, 'unauthorized', 'url does not match');
  if (typeof header.nonce !== 'string') throw new Problem(400, 'badNonce', 'no nonce');
  let key;
  let accountId = null;
  if (header.jwk) {
    if (header.kid) throw new Problem(400, 'malformed', 'jwk and kid');
    key = createPublicKey({ key: header.jwk, format: 'jwk' });
  } else {
    accountId = header.kid?.startsWith(`${base}/acct/`) ? header.kid.slice(base.length + 6) : null;
    key = accountId && keys.get(accountId);
    if (!key) throw new Problem(400, 'accountDoesNotExist', 'unknown account');
  }
  const signed = Buffer.from(`${jws.protected}.${jws.payload}`);
  if (!verify('sha256', signed, { key, dsaEncoding: 'ieee-p1363' }, Buffer.from(jws.signature, 'base64url')))
    throw new Problem(400, 'malformed', 'signature does not verify');
  const payload = jws.payload === '' ? null : b64json(jws.payload);
  return { header, payload, accountId };
}

const checked = (row) => {
  if (!row.nonce_ok) throw new Problem(400, 'badNonce', 'nonce unknown or used');
  if (row.account_ok === 0) throw new Problem(401, 'unauthorized', 'account not valid');
  return row;
};

const { ca, intermediate } = await createPki({ algorithm: 'ECDSA', curve: 'P-256' });
const pem = (der) =>
  `-----BEGIN CERTIFICATE-----\n${Buffer.from(der)
    .toString('base64')
    .replace(/.{64}/g, '$&\n')
    .replace(/\n?$/, '\n')}-----END CERTIFICATE-----\n`;
const chainPem = pem(intermediate.der ?? intermediate.raw);
const validators = new Agent({ keepAlive: true, maxSockets: 64 });

/** http-01: the key authorization from the identifier's port http01Port, then one statement. */
function validate(authz, thumbprint) {
  httpGet(
    {
      host: authz.identifier,
      port: http01Port,
      path: `/.well-known/acme-challenge/${authz.token}`,
      agent: validators,
    },
    (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const ok =
          res.statusCode === 200 && Buffer.concat(chunks).toString() === `${authz.token}.${thumbprint}`;
        query('validated', [authz.id, ok ? 'valid' : 'invalid']).catch((e) => console.error(e));
      });
    },
  ).on('error', () => query('validated', [authz.id, 'invalid']).catch((e) => console.error(e)));
}

const orderJson = (o) => ({
  status: o.status,
  expires: new Date(o.expires_at).toISOString(),
  identifiers: [{ type: 'ip', value: o.identifier }],
  authorizations: [`${base}/authz/${o.authz_id}`],
  finalize: `${base}/finalize/${o.id}`,
  ...(o.certificate_id ? { certificate: `${base}/cert/${o.certificate_id}` } : {}),
});

async function post(path, url, body) {
  const { header, payload, accountId } = readJws(body, url);
  const [, resource, id] = path.split('/');
  switch (resource) {
    case 'new-account': {
      const thumbprint = thumbprintOf(header.jwk);
      const row = await query('newAccount', [header.nonce, thumbprint, header.jwk]);
      if (!row.nonce_ok) throw new Problem(400, 'badNonce', 'nonce unknown or used');
      keys.set(String(row.id), createPublicKey({ key: header.jwk, format: 'jwk' }));
      return { status: 201, location: `${base}/acct/${row.id}`, json: { status: 'valid' } };
    }
    case 'new-order': {
      const identifier = payload?.identifiers?.[0];
      if (payload.identifiers.length !== 1 || identifier.type !== 'ip')
        throw new Problem(400, 'rejectedIdentifier', 'one ip identifier');
      const row = checked(
        await query('newOrder', [
          header.nonce,
          accountId,
          identifier.value,
          randomBytes(16).toString('base64url'),
        ]),
      );
      return {
        status: 201,
        location: `${base}/order/${row.id}`,
        json: orderJson({ ...row, status: 'pending', identifier: identifier.value }),
      };
    }
    case 'authz': {
      const z = checked(await query('authz', [header.nonce, accountId, id]));
      if (!z.id) throw new Problem(404, 'malformed', 'no such authorization');
      return {
        status: 200,
        json: {
          status: z.status,
          identifier: { type: 'ip', value: z.identifier },
          challenges: [
            { type: 'http-01', url: `${base}/chall/${z.id}`, token: z.token, status: z.challenge_status },
          ],
        },
      };
    }
    case 'chall': {
      const z = checked(await query('challenge', [header.nonce, accountId, id]));
      if (!z.id) throw new Problem(400, 'malformed', 'no pending challenge');
      validate(z, thumbprintOf(keys.get(accountId).export({ format: 'jwk' })));
      return { status: 200, json: { type: 'http-01', url, token: z.token, status: 'processing' } };
    }
    case 'order': {
      const o = checked(await query('order', [header.nonce, accountId, id]));
      if (!o.id) throw new Problem(404, 'malformed', 'no such order');
      return { status: 200, json: orderJson(o) };
    }
    case 'finalize': {
      const o = checked(await query('order', [header.nonce, accountId, id]));
      if (o.status !== 'ready') throw new Problem(403, 'orderNotReady', `the order is ${o.status}`);
      const csr = pki.parseCsr(Buffer.from(payload.csr, 'base64url'));
      const names = csr.subjectAltNames.map((san) => san.value);
      if (names.length !== 1 || names[0] !== o.identifier)
        throw new Problem(400, 'badCSR', 'the CSR does not name the order identifier');
      const issued = await ca.issue(pki.templateFromCsr(csr, { validityDays: 90 }));
      const leaf = pki.parseCertificate(issued.der);
      const row = await query('issued', [o.id, accountId, leaf.serialNumber, pem(issued.der) + chainPem]);
      if (!row) throw new Problem(403, 'orderNotReady', 'the order changed');
      return { status: 200, location: `${base}/order/${o.id}`, json: orderJson(row) };
    }
    case 'cert': {
      const c = checked(await query('certificate', [header.nonce, accountId, id]));
      if (!c.pem) throw new Problem(404, 'malformed', 'no such certificate');
      return { status: 200, pem: c.pem };
    }
    default:
      throw new Problem(404, 'malformed', 'no such resource');
  }
}

async function handle(req, res, body) {
  const headers = { 'replay-nonce': await freshNonce(), 'cache-control': 'no-store' };
  try {
    if (req.method === 'GET' && req.url === '/directory') {
      res.writeHead(200, { ...headers, 'content-type': 'application/json' });
      return res.end(
        JSON.stringify({
          newNonce: `${base}/new-nonce`,
          newAccount: `${base}/new-account`,
          newOrder: `${base}/new-order`,
        }),
      );
    }
    if (req.url === '/new-nonce') {
      res.writeHead(req.method === 'HEAD' ? 200 : 204, headers);
      return res.end();
    }
    if (req.method !== 'POST') throw new Problem(405, 'malformed', 'POST only');
    const answer = await post(req.url, `${base}${req.url}`, body);
    if (answer.location) headers.location = answer.location;
    if (answer.pem) {
      res.writeHead(answer.status, { ...headers, 'content-type': 'application/pem-certificate-chain' });
      return res.end(answer.pem);
    }
    res.writeHead(answer.status, { ...headers, 'content-type': 'application/json' });
    res.end(JSON.stringify(answer.json));
  } catch (error) {
    const problem = error instanceof Problem ? error : new Problem(500, 'serverInternal', String(error));
    if (!(error instanceof Problem)) console.error(error);
    res.writeHead(problem.status, { ...headers, 'content-type': 'application/problem+json' });
    res.end(JSON.stringify({ type: problem.type, detail: problem.message }));
  }
}

await db.query(SCHEMA);
await refillNonces();
const server = createServer(
  { cert: readFileSync(env('FLOOR_TLS_CERT_PATH')), key: readFileSync(env('FLOOR_TLS_KEY_PATH')) },
  (req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => handle(req, res, Buffer.concat(chunks).toString('utf8')));
  },
);
server.keepAliveTimeout = 30_000;
server.listen(port, '127.0.0.1', () => console.log('listening'));
process.on('SIGTERM', () => {
  server.close();
  db.end().finally(() => process.exit(0));
});
