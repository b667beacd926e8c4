import {
  CaChainResult,
  ConnectionTestResult,
  IssuedCertificateResult,
  IssuerCapabilities,
  IssuerConnector,
  IssuerConnectorFactory,
  IssuerError,
  IssueRequest,
  pemCertificateBlocks,
  RenewRequest,
  RevokeRequest,
} from '@certlane/pki';
import { readIssuedCertificate } from '../issuers/issued-answer';
import { requestedCsr } from '../local-ca/pki-errors';
import { VaultAnswer, vaultRequest } from './vault-http';
import {
  mountUrl,
  roleOf,
  signBody,
  signedPems,
  vaultFailure,
  vaultHeaders,
  VaultPkiConfig,
  vaultSerial,
} from './vault-pki-protocol';

/** What the Vault connector needs of the issuance service. */
export interface VaultPkiDependencies {
  issuerId: string;
  /** Trust for outbound TLS: the system roots and SERVICE_SERVER_CA_BUNDLE_PATH. */
  outboundTls: { ca: string[]; rejectUnauthorized: boolean };
}

const VAULT_TIMEOUT_MS = 30_000;

export const VAULT_PKI_CAPABILITIES: IssuerCapabilities = Object.freeze({
  // Vault publishes its own CRL and OCSP for what it signs.
  crl: false,
  ocsp: false,
  revoke: true,
  renew: false,
  caChain: true,
  synchronous: true,
});

/**
 * The `vault_pki` issuer connector (ADR 0083): HashiCorp Vault's (or OpenBao's) PKI secrets engine
 * signs CSRs with a role (`sign/<role>`), revokes by serial, and hands out its chain. The token
 * travels only in `X-Vault-Token` to the configured address, over TLS checked against the system
 * roots and SERVICE_SERVER_CA_BUNDLE_PATH.
 */
export class VaultPkiConnector implements IssuerConnector {
  readonly kind = 'vault_pki';
  readonly capabilities = VAULT_PKI_CAPABILITIES;

  constructor(
    private readonly config: VaultPkiConfig,
    private readonly dependencies: VaultPkiDependencies,
  ) {}

  private get what(): string {
    return `issuer ${this.dependencies.issuerId}`;
  }

  async issue(request: IssueRequest): Promise<IssuedCertificateResult> {
    const csr = await requestedCsr(request.csrPem);
    const role = roleOf(this.config, request);
    const what = `${this.what} (Vault role ${role})`;
    const answer = await this.call(
      'POST',
      mountUrl(this.config, `sign/${encodeURIComponent(role)}`),
      signBody(request),
      what,
    );
    return readIssuedCertificate(signedPems(answer), csr.publicKey.spki, what);
  }

  renew(request: RenewRequest): Promise<IssuedCertificateResult> {
    return this.issue(request);
  }

  /** Vault records no reason: the serial is revoked, and the reason stays Certlane's record. */
  async revoke(request: RevokeRequest): Promise<void> {
    await this.call('POST', mountUrl(this.config, 'revoke'), {
      serial_number: vaultSerial(request.serialNumber),
    });
  }

  async getCaChain(): Promise<CaChainResult> {
    const answer = await this.call('GET', mountUrl(this.config, 'cert/ca_chain'));
    const chain = (answer.json?.data as Record<string, unknown> | undefined)?.certificate;
    if (typeof chain !== 'string' || pemCertificateBlocks(chain).length === 0)
      throw new IssuerError(
        'misconfigured',
        `${this.what}: Vault's ca_chain of mount ${this.config.mount} is empty`,
      );
    return { chainPem: pemCertificateBlocks(chain).join('') };
  }

  /** Looks the token up (is it valid, with which policies) and reads the mount's chain. */
  async testConnection(): Promise<ConnectionTestResult> {
    const started = Date.now();
    try {
      const token = await this.call('GET', `${this.config.address}/v1/auth/token/lookup-self`);
      const policies = (token.json?.data as Record<string, unknown> | undefined)?.policies;
      const { chainPem } = await this.getCaChain();
      return {
        ok: true,
        message: `the token is valid (policies: ${Array.isArray(policies) ? policies.join(', ') : 'none named'}); mount ${this.config.mount} has a chain of ${pemCertificateBlocks(chainPem).length} certificate(s)`,
        latencyMs: Date.now() - started,
      };
    } catch (error) {
      if (!(error instanceof IssuerError)) throw error;
      return { ok: false, message: error.message, latencyMs: Date.now() - started };
    }
  }

  private async call(
    method: 'GET' | 'POST',
    url: string,
    body?: unknown,
    what = this.what,
  ): Promise<VaultAnswer> {
    let answer: VaultAnswer;
    try {
      answer = await vaultRequest(
        { ...this.dependencies.outboundTls, timeoutMs: VAULT_TIMEOUT_MS },
        method,
        url,
        vaultHeaders(this.config),
        body,
      );
    } catch (error) {
      // vaultRequest fails only with VaultUnreachable: no answer, a timeout, a TLS refusal.
      throw new IssuerError(
        'unavailable',
        `${what}: Vault at ${this.config.address} cannot be reached: ${(error as Error).message}`,
      );
    }
    const failure = vaultFailure(answer, what);
    if (failure) throw failure;
    return answer;
  }
}

/** The `vault_pki` kind's entry in the issuer connector registry; `token` is redacted. */
export const vaultPkiConnectorFactory: IssuerConnectorFactory<VaultPkiConfig, VaultPkiDependencies> = {
  kind: 'vault_pki',
  capabilities: VAULT_PKI_CAPABILITIES,
  validateConfig(config: unknown): VaultPkiConfig {
    const stored = (config ?? {}) as Record<string, unknown>;
    const text = (name: string) => (typeof stored[name] === 'string' ? (stored[name] as string) : '');
    for (const name of ['address', 'mount', 'role', 'token'])
      if (!text(name)) throw new IssuerError('misconfigured', `a vault_pki issuer needs ${name}`);
    return {
      address: text('address').replace(/\/+$/, ''),
      mount: text('mount').replace(/^\/+|\/+$/g, ''),
      role: text('role'),
      token: text('token'),
      ...(text('namespace') ? { namespace: text('namespace') } : {}),
    };
  },
  redact(config: VaultPkiConfig): Record<string, unknown> {
    return {
      address: config.address,
      mount: config.mount,
      role: config.role,
      token: '********',
      namespace: config.namespace,
    };
  },
  create(config, dependencies) {
    return new VaultPkiConnector(config, dependencies);
  },
};
