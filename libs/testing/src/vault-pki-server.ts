import { readFileSync } from 'node:fs';
import { createServer, Server } from 'node:https';
import { AddressInfo } from 'node:net';
import {
  CertificateAuthority,
  createSelfSignedCa,
  intermediateCaTemplate,
  parseCertificate,
  parseCsr,
  PemLabel,
  SoftwareKeyProvider,
  templateFromCsr,
  toPem,
} from '@certlane/pki';
import { createTlsFixture, TlsFixture } from './tls-fixture';

/** A role of the mount: the names it signs for (subdomains of `allowedDomains`) and its longest TTL. */
export interface FakeVaultRole {
  allowedDomains: string[];
  maxTtlHours: number;
}

export interface FakeVaultOptions {
  token: string;
  /** When set, requests must carry it in X-Vault-Namespace. */
  namespace?: string;
  mount: string;
  roles: Record<string, FakeVaultRole>;
}

/** A request as it arrived, for tests to check what was sent. */
export interface FakeVaultRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, unknown> | null;
}

const HOUR_MS = 3_600_000;

/**
 * A local stand-in for HashiCorp Vault's PKI secrets engine: no Vault runs here, so this speaks its
 * documented HTTP API (`/v1/<mount>/sign/<role>`, `/revoke`, `/cert/ca_chain`,
 * `/v1/auth/token/lookup-self`, `{"errors": [...]}` bodies) over TLS and checks what a real one
 * checks: the token (403 permission denied), the namespace, the role (400 unknown role), the
 * role's allowed domains and TTL (400), a known serial on revoke, and 503 while sealed. It signs
 * with a root and an intermediate CA of its own.
 */
export class VaultPkiServer {
  readonly requests: FakeVaultRequest[] = [];
  readonly revoked = new Map<string, string>();
  sealed = false;
  private readonly issued = new Set<string>();

  private constructor(
    private readonly server: Server,
    private readonly tls: TlsFixture,
    private readonly options: FakeVaultOptions,
    private readonly ca: CertificateAuthority,
    /** The intermediate, then the root. */
    readonly chainPem: string[],
  ) {}

  static async start(options: FakeVaultOptions): Promise<VaultPkiServer> {
    const keys = new SoftwareKeyProvider();
    const now = Date.now();
    const { signer: rootSigner } = await keys.generate({ algorithm: 'ECDSA', curve: 'P-256' });
    const root = await createSelfSignedCa({
      subject: [['CN', 'Vault Test Root']],
      signer: rootSigner,
      notBefore: new Date(now - HOUR_MS),
      notAfter: new Date(now + 365 * 24 * HOUR_MS),
    });
    const { signer } = await keys.generate({ algorithm: 'ECDSA', curve: 'P-256' });
    const intermediate = await new CertificateAuthority({ certificate: root.der, signer: rootSigner }).issue(
      intermediateCaTemplate({
        subject: [['CN', 'Vault Test Intermediate']],
        publicKey: signer.publicKey,
        notBefore: new Date(now - HOUR_MS),
        notAfter: new Date(now + 180 * 24 * HOUR_MS),
        pathLength: 0,
      }),
    );
    const tls = await createTlsFixture('vault');
    const holder: { instance?: VaultPkiServer } = {};
    const server = createServer(
      { cert: readFileSync(tls.certPath), key: readFileSync(tls.keyPath) },
      (req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (chunk: Buffer) => chunks.push(chunk));
        req.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let body: Record<string, unknown> | null = null;
          try {
            body = text ? (JSON.parse(text) as Record<string, unknown>) : null;
          } catch {
            body = null;
          }
          const request = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body };
          void (holder.instance as VaultPkiServer)
            .answer(request)
            .then(([status, answer]) =>
              res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(answer)),
            );
        });
      },
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    holder.instance = new VaultPkiServer(
      server,
      tls,
      options,
      new CertificateAuthority({ certificate: intermediate.der, signer }),
      [toPem(PemLabel.certificate, intermediate.der), toPem(PemLabel.certificate, root.der)],
    );
    return holder.instance;
  }

  get url(): string {
    return `https://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Its TLS certificate, for SERVICE_SERVER_CA_BUNDLE_PATH. */
  get tlsCertPath(): string {
    return this.tls.certPath;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private async answer(request: FakeVaultRequest): Promise<[number, unknown]> {
    this.requests.push(request);
    const errors = (status: number, ...messages: string[]): [number, unknown] => [
      status,
      { errors: messages },
    ];
    if (this.sealed) return errors(503, 'Vault is sealed');
    if (request.headers['x-vault-token'] !== this.options.token) return errors(403, 'permission denied');
    if (this.options.namespace && request.headers['x-vault-namespace'] !== this.options.namespace)
      return errors(403, 'permission denied');
    if (request.method === 'GET' && request.path === '/v1/auth/token/lookup-self')
      return [200, { data: { policies: ['default', 'pki-sign'], ttl: 3600 } }];
    const prefix = `/v1/${this.options.mount}/`;
    if (!request.path.startsWith(prefix))
      return errors(404, `no handler for route "${request.path.slice(4)}"`);
    const path = request.path.slice(prefix.length);
    if (request.method === 'GET' && path === 'cert/ca_chain')
      return [200, { data: { certificate: this.chainPem.join('') } }];
    if (request.method === 'POST' && path.startsWith('sign/'))
      return this.sign(decodeURIComponent(path.slice(5)), request.body);
    if (request.method === 'POST' && path === 'revoke') {
      const serial = String(request.body?.serial_number ?? '');
      if (!this.issued.has(serial)) return errors(400, `certificate with serial ${serial} not found`);
      this.revoked.set(serial, new Date().toISOString());
      return [200, { data: { revocation_time: Math.floor(Date.now() / 1000) } }];
    }
    return errors(405, 'unsupported operation');
  }

  private async sign(roleName: string, body: Record<string, unknown> | null): Promise<[number, unknown]> {
    const errors = (...messages: string[]): [number, unknown] => [400, { errors: messages }];
    const role = this.options.roles[roleName];
    if (!role) return errors(`unknown role: ${roleName}`);
    if (typeof body?.csr !== 'string') return errors('csr is required');
    let csr;
    try {
      csr = parseCsr(body.csr);
    } catch {
      return errors('certificate request could not be parsed');
    }
    const names = [
      ...csr.subjectAltNames.filter((san) => san.type === 'dns').map((san) => san.value),
      ...(typeof body.alt_names === 'string' ? body.alt_names.split(',') : []),
    ];
    const allowed = (name: string) =>
      role.allowedDomains.some((domain) => name === domain || name.endsWith(`.${domain}`));
    const refused = names.find((name) => !allowed(name));
    if (refused) return errors(`subject alternate name ${refused} not allowed by this role`);
    const ttlHours = typeof body.ttl === 'string' ? Number(body.ttl.replace(/h$/, '')) : role.maxTtlHours;
    if (!Number.isFinite(ttlHours) || ttlHours > role.maxTtlHours)
      return errors(`ttl ${String(body.ttl)} exceeds the role's max_ttl of ${role.maxTtlHours}h`);
    const issued = await this.ca.issue(templateFromCsr(csr, { validitySeconds: ttlHours * 3600 }));
    const leaf = parseCertificate(issued.der);
    const serial = (leaf.serialNumber.match(/../g) ?? []).join(':');
    this.issued.add(serial);
    return [
      200,
      {
        data: {
          certificate: toPem(PemLabel.certificate, issued.der),
          issuing_ca: this.chainPem[0],
          ca_chain: this.chainPem,
          serial_number: serial,
          expiration: Math.floor(leaf.notAfter.getTime() / 1000),
        },
      },
    ];
  }
}
