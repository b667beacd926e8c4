import { spawn } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, IncomingMessage, Server } from 'node:http';
import { request as httpsRequestRaw } from 'node:https';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { adminApiRequest, startTestSystem, TestSystem } from '@certlane/testing';
import { Client } from 'pg';

const CHALLENGE = 'strongswan-challenge-0123456';

/**
 * SCEP with strongSwan's `pki --scep` (Debian 12's strongswan-pki 5.9.8, unmodified), the second
 * real SCEP client beside scepclient, on a profile without legacy algorithms (AES, SHA-256): the CA
 * and RA certificates with `--scepca`, a PKCSReq with the challenge password, and a renewal with
 * the certificate it got (`--cert`/`--key`: a RenewalReq), recorded as that certificate's next
 * version (ADR 0072). strongSwan's fetcher speaks plain HTTP to an `http://` URL and trusts only
 * the system's CAs over https, while every Certlane listener is TLS; the test stands in for the
 * plain-HTTP front such clients are deployed behind (docs/scep.md), forwarding to the gateway.
 */
describe('SCEP with strongSwan pki', () => {
  let system: TestSystem;
  let gateway: string;
  let db: Client;
  let front: Server;
  let url: string;
  const dir = mkdtempSync(join(tmpdir(), 'scep-strongswan-'));
  const file = (name: string) => join(dir, name);

  /**
   * `pki` with its arguments, in the background (the front it talks to runs in this process): what
   * it printed (stdout) and said (stderr, without its plugin loader's notes).
   */
  function pki(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
    const child = spawn('pki', args, { timeout: 60_000 });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const notes = /^(plugin '.*': failed to load|TPM 2\.0 - could not load).*\n?/gm;
    return new Promise((resolve) =>
      child.on('close', (status) => resolve({ status, stdout, stderr: stderr.replace(notes, '') })),
    );
  }

  /** A plain-HTTP front forwarding every request, body and answer as they are, to the gateway. */
  async function startFront(): Promise<Server> {
    const server = createServer((incoming: IncomingMessage, answer) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('end', () => {
        const forwarded = httpsRequestRaw(
          `${gateway}${incoming.url}`,
          {
            method: incoming.method,
            ca: system.ca,
            headers: { ...incoming.headers, host: new URL(gateway).host },
          },
          (reply) => {
            answer.writeHead(reply.statusCode ?? 502, reply.headers);
            reply.pipe(answer);
          },
        );
        forwarded.on('error', () => answer.writeHead(502).end());
        forwarded.end(Buffer.concat(chunks));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return server;
  }

  beforeAll(async () => {
    system = await startTestSystem('scepswan', ['auth', 'issuance', 'protocol-frontends', 'api-gateway']);
    gateway = system.services['api-gateway'].url;
    db = new Client({ connectionString: system.database.url });
    await db.connect();
    const created = await adminApiRequest(system, 'POST', '/api/v1/admin/scep/profiles', {
      path_id: 'vpn',
      challenge_password: CHALLENGE,
    });
    expect(created.status).toBe(201);
    front = await startFront();
    url = `http://127.0.0.1:${(front.address() as AddressInfo).port}/scep/vpn`;
  }, 120_000);

  afterAll(async () => {
    await new Promise((resolve) => front?.close(resolve));
    await db?.end();
    await system?.stop();
  });

  it('RFC 8894 3.3.1 and 3.3.1.2: pki --scep enrolls with the challenge password (AES, SHA-256) and renews with the certificate it got, its next version in the inventory', async () => {
    const fetched = await pki(
      ['--scepca', '--url', url, '--caout', file('ca.pem'), '--raout', file('ra.pem')].concat([
        '--outform',
        'pem',
      ]),
    );
    expect([fetched.status, fetched.stderr]).toEqual([0, expect.stringContaining('RA cert is trusted')]);
    const cas = ['--cacert-enc', file('ra.pem'), '--cacert-sig', file('ra.pem')].concat([
      '--cacert',
      file('ca.pem'),
      '--cacert',
      file('ca-1.pem'),
    ]);
    for (const key of ['first.key', 'second.key']) {
      const generated = await pki(['--gen', '--type', 'rsa', '--size', '2048', '--outform', 'pem']);
      expect(generated.status).toBe(0);
      writeFileSync(file(key), generated.stdout);
    }
    const dn = 'CN=vpn-gateway.example.com';

    const enrolled = await pki(
      ['--scep', '--url', url, '--in', file('first.key'), '--dn', dn].concat([
        '--password',
        CHALLENGE,
        ...cas,
        '--outform',
        'pem',
      ]),
    );
    expect([enrolled.status, enrolled.stderr]).toEqual([
      0,
      expect.stringContaining('Issued certificate is trusted'),
    ]);
    writeFileSync(file('first.pem'), enrolled.stdout);
    const first = new X509Certificate(enrolled.stdout);
    expect(first.subject).toBe('CN=vpn-gateway.example.com');
    // Issued by one of the CA certificates --scepca wrote (strongSwan checked the chain too).
    const issuers = ['ca.pem', 'ca-1.pem'].map((name) => new X509Certificate(readFileSync(file(name))));
    expect(issuers.some((ca) => first.checkIssued(ca))).toBe(true);

    // With the certificate it holds and its key: a RenewalReq for a new key, no password.
    const renewed = await pki(
      ['--scep', '--url', url, '--in', file('second.key'), '--dn', dn].concat([
        '--cert',
        file('first.pem'),
        '--key',
        file('first.key'),
        ...cas,
        '--outform',
        'pem',
      ]),
    );
    expect([renewed.status, renewed.stderr]).toEqual([
      0,
      expect.stringContaining('Issued certificate is trusted'),
    ]);
    const second = new X509Certificate(renewed.stdout);
    expect(second.serialNumber).not.toBe(first.serialNumber);
    expect(second.publicKey.equals(first.publicKey)).toBe(false);

    const { rows } = await db.query(
      `SELECT c.source, v.version, v.serial_number FROM issuance.certificates c
         JOIN issuance.certificate_versions v ON v.certificate_id = c.id
        WHERE c.common_name = 'vpn-gateway.example.com' ORDER BY v.version`,
    );
    const serial = (certificate: X509Certificate) =>
      certificate.serialNumber.toLowerCase().replace(/^0+(?=.)/, '');
    expect(rows).toEqual([
      { source: 'SCEP', version: 1, serial_number: serial(first) },
      { source: 'SCEP', version: 2, serial_number: serial(second) },
    ]);
  });
});
