import { X509Certificate } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, Server } from 'node:http';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { Client } from 'pg';

/** What the specs of real ACME clients check of a run, against the server and its database. */

/** Serves `<root>/.well-known/acme-challenge/<token>` on loopback, as a client's web server would. */
export async function serveWebroot(root: string, port: number): Promise<Server> {
  const server = createServer((req, res) => {
    const token = /^\/\.well-known\/acme-challenge\/([A-Za-z0-9_-]+)$/.exec(req.url ?? '')?.[1];
    const file = token && join(root, '.well-known', 'acme-challenge', token);
    if (!file || !existsSync(file)) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(readFileSync(file));
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return server;
}

/** Runs `body` while `root` answers http-01 on `port` (the port the server validates against). */
export async function withWebroot<T>(root: string, port: number, body: () => Promise<T>): Promise<T> {
  const server = await serveWebroot(root, port);
  try {
    return await body();
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}

/**
 * The certificate a TLS server on loopback `port` presents for `servername`, if it answers. Read,
 * not trusted (the handshake does not verify it): callers check it against the server's records.
 */
export function servedCertificate(port: number, servername: string): Promise<X509Certificate | undefined> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port, servername, rejectUnauthorized: false }, () => {
      const certificate = socket.getPeerX509Certificate();
      socket.end();
      resolve(certificate);
    });
    socket.on('error', () => resolve(undefined));
  });
}

/** The subject alternative names of a PEM's first certificate, sorted (`DNS:a`, `IP Address:b`). */
export const certificateSans = (pem: string) => new X509Certificate(pem).subjectAltName?.split(', ').sort();

/** Whether a PEM chain's leaf is signed by the certificate after it. */
export function issuedByNextInChain(pem: string): boolean {
  const [leaf, issuer] = pem.match(/-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----/g) ?? [];
  return !!leaf && !!issuer && new X509Certificate(leaf).verify(new X509Certificate(issuer).publicKey);
}

/** The account an EAB key is bound to, null while unbound. */
export async function boundAccountOf(db: Client, keyId: string): Promise<string | null> {
  const { rows } = await db.query(
    'SELECT bound_account_id FROM protocol_frontends.acme_eab_keys WHERE id = $1',
    [keyId],
  );
  return rows[0]?.bound_account_id ?? null;
}

export interface AcmeCertificateRecord {
  serial_hex: string;
  order_id: string;
  account_id: string;
  profile_id: string;
  revoked_at: Date | null;
  revocation_reason: string | null;
}

/** The server's ACME certificate row of an issued PEM: its order, account, profile and revocation. */
export async function acmeCertificateOf(db: Client, pem: string): Promise<AcmeCertificateRecord | undefined> {
  const serial = BigInt(`0x${new X509Certificate(pem).serialNumber}`);
  const { rows } = await db.query<AcmeCertificateRecord>(
    `SELECT c.serial_hex, c.order_id, c.account_id, o.profile_id, c.revoked_at, c.revocation_reason
       FROM protocol_frontends.acme_certificates c
       JOIN protocol_frontends.acme_orders o ON o.id = c.order_id`,
  );
  return rows.find((row) => BigInt(`0x${row.serial_hex}`) === serial);
}
