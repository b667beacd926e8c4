import { Agent as HttpsAgent } from 'node:https';
import * as acme from 'acme-client';
import {
  DnsUpdateError,
  sendDnsUpdate,
  TsigKey,
  TSIG_ALGORITHMS,
  TsigAlgorithm,
  TxtUpdate,
} from '@certlane/connectors';
import {
  CaChainResult,
  ConnectionTestResult,
  IssuedCertificateResult,
  IssuerCapabilities,
  IssuerConnector,
  IssuerConnectorFactory,
  IssuerError,
  IssueRequest,
  RenewRequest,
  revocationReasonCode,
  RevokeRequest,
} from '@certlane/pki';
import { dnsServerAddress } from '@certlane/issuance-domain';
import { readIssuedCertificate } from '../issuers/issued-answer';
import { requestedCsr } from '../local-ca/pki-errors';
import { AcmeAccounts } from '../issuers/acme-accounts';
import { acmeFailure, AcmeStep, challengeRecordName, inZone, orderIdentifiers } from './acme-issuer-protocol';

export type AcmeChallengeType = 'http-01' | 'dns-01' | 'dns-persist-01';

export interface AcmeIssuerConfig {
  directoryUrl: string;
  email: string;
  eab?: { kid: string; hmacKey: string };
  challengeType: AcmeChallengeType;
  /** draft-ietf-acme-profiles: the CA's profile every order names. */
  profile?: string;
  /** dns-01: where `_acme-challenge` TXT records are written (RFC 2136), in which zone, signed how. */
  dnsUpdate?: { host: string; port: number; zone: string; key?: TsigKey };
}

export interface AcmeIssuerDependencies {
  issuerId: string;
  acmeAccounts: AcmeAccounts;
  outboundTls: { ca: string[]; rejectUnauthorized: boolean };
}

const CAPABILITIES: IssuerCapabilities = Object.freeze({
  // The CA publishes the CRL and OCSP of what it issues.
  crl: false,
  ocsp: false,
  // By the account that ordered it (RFC 8555 7.6), given the certificate.
  revoke: true,
  renew: false,
  caChain: false,
  synchronous: true,
});

/** Seconds a challenge TXT record lives: validators must not cache an old value. */
const CHALLENGE_TTL = 60;

/**
 * node-acme-client's requests go through its own axios instance: its https agent trusts what every
 * outbound TLS client of the service trusts (system roots, SERVICE_SERVER_CA_BUNDLE_PATH).
 */
let agentTrust: string | undefined;
function trustOutbound(tls: AcmeIssuerDependencies['outboundTls']): void {
  const key = `${tls.rejectUnauthorized}\n${tls.ca.length}`;
  if (agentTrust === key) return;
  acme.axios.defaults.httpsAgent = new HttpsAgent({ ca: tls.ca, rejectUnauthorized: tls.rejectUnauthorized });
  agentTrust = key;
}

/**
 * The `acme` issuer connector (ADR 0084): Certlane as an ACME client (RFC 8555) of another CA
 * (Let's Encrypt, a step-ca, another Certlane). Its account is made on first use and kept sealed;
 * every order's authorizations are answered by dns-01 (TXT records written with RFC 2136, signed
 * with TSIG) or dns-persist-01 (the operator's standing record), then the caller's CSR is
 * finalized as it is.
 */
export class AcmeIssuerConnector implements IssuerConnector {
  readonly kind = 'acme';
  readonly capabilities = CAPABILITIES;

  constructor(
    private readonly config: AcmeIssuerConfig,
    private readonly dependencies: AcmeIssuerDependencies,
  ) {}

  private get what(): string {
    return `issuer ${this.dependencies.issuerId}`;
  }

  async issue(request: IssueRequest): Promise<IssuedCertificateResult> {
    const csr = await requestedCsr(request.csrPem);
    if (this.config.challengeType === 'http-01')
      throw new IssuerError(
        'unsupported',
        `${this.what}: http-01 needs a responder on port 80 of every name, which Certlane does not run; use dns-01 or dns-persist-01`,
      );
    const identifiers = orderIdentifiers(request, csr);
    if (identifiers.length === 0)
      throw new IssuerError('rejected', `${this.what}: the CSR names no DNS name or IP address to order`);
    const client = await this.client();
    const order = await this.step('order', () =>
      client.createOrder({
        identifiers,
        ...(request.profile.notAfter ? { notAfter: request.profile.notAfter.toISOString() } : {}),
        ...(this.config.profile ? { profile: this.config.profile } : {}),
      } as Parameters<acme.Client['createOrder']>[0]),
    );
    const written: { name: string; value: string }[] = [];
    try {
      const authorizations = await this.step('order', () => client.getAuthorizations(order));
      for (const authorization of authorizations) {
        if (authorization.status === 'valid') continue;
        const challenge = authorization.challenges.find((c) => c.type === this.config.challengeType);
        if (!challenge)
          throw new IssuerError(
            'rejected',
            `${this.what}: the CA offers no ${this.config.challengeType} challenge for ${authorization.identifier.value}`,
          );
        if (challenge.type === 'dns-01') {
          const update = {
            op: 'add' as const,
            name: challengeRecordName(authorization.identifier.value),
            value: await client.getChallengeKeyAuthorization(challenge),
            ttl: CHALLENGE_TTL,
          };
          await this.writeDns([update]);
          written.push(update);
        }
        await this.step('validation', async () => {
          await client.completeChallenge(challenge);
          await client.waitForValidStatus(challenge);
        });
      }
      await this.step('finalize', async () => {
        const finalized = await client.finalizeOrder(order, request.csrPem);
        await client.waitForValidStatus(finalized);
      });
      const chain = await this.step('download', async () =>
        client.getCertificate(await client.getOrder(order)),
      );
      return readIssuedCertificate(chain, csr.publicKey.spki, this.what);
    } finally {
      if (written.length > 0)
        await this.writeDns(written.map(({ name, value }) => ({ op: 'delete' as const, name, value }))).catch(
          () => undefined,
        );
    }
  }

  renew(request: RenewRequest): Promise<IssuedCertificateResult> {
    return this.issue(request);
  }

  /** RFC 8555 7.6, signed by the account that ordered it; the CA needs the certificate itself. */
  async revoke(request: RevokeRequest): Promise<void> {
    if (!request.certificatePem)
      throw new IssuerError(
        'unsupported',
        `${this.what}: revoking serial ${request.serialNumber} at an ACME CA needs the certificate, which this revocation does not carry`,
      );
    const client = await this.client();
    const pem = request.certificatePem;
    await this.step('revoke', () =>
      client.revokeCertificate(pem, { reason: revocationReasonCode(request.reason) }),
    );
  }

  async getCaChain(): Promise<CaChainResult> {
    throw new IssuerError('unsupported', `${this.what} hands out its chain with each certificate only`);
  }

  /**
   * Reads the directory and makes sure of the account (registering it, with the external account
   * binding when configured): the message names the account URL, which a dns-persist-01 record
   * must name.
   */
  async testConnection(): Promise<ConnectionTestResult> {
    const started = Date.now();
    try {
      const client = await this.client();
      return {
        ok: true,
        message: `account ${client.getAccountUrl()} at ${this.config.directoryUrl} (challenge ${this.config.challengeType})`,
        latencyMs: Date.now() - started,
      };
    } catch (error) {
      if (!(error instanceof IssuerError)) throw error;
      return { ok: false, message: error.message, latencyMs: Date.now() - started };
    }
  }

  /** A client of the issuer's account, registered (once: the URL is stored) before it is used. */
  private async client(): Promise<acme.Client> {
    trustOutbound(this.dependencies.outboundTls);
    const { issuerId, acmeAccounts } = this.dependencies;
    const account = await acmeAccounts.accountFor(issuerId, this.config.directoryUrl);
    const client = new acme.Client({
      directoryUrl: this.config.directoryUrl,
      accountKey: account.keyPem,
      ...(account.accountUrl ? { accountUrl: account.accountUrl } : {}),
      ...(this.config.eab ? { externalAccountBinding: this.config.eab } : {}),
      backoffAttempts: 30,
      backoffMin: 200,
      backoffMax: 5_000,
    });
    if (!account.accountUrl) {
      await this.step('account', () =>
        client.createAccount({ termsOfServiceAgreed: true, contact: [`mailto:${this.config.email}`] }),
      );
      await acmeAccounts.registered(issuerId, this.config.directoryUrl, client.getAccountUrl());
    }
    return client;
  }

  private async writeDns(updates: TxtUpdate[]): Promise<void> {
    const target = this.config.dnsUpdate;
    if (!target)
      throw new IssuerError('misconfigured', `${this.what}: dns-01 needs dns_update_server and dns_zone`);
    const outside = updates.find((update) => !inZone(update.name, target.zone));
    if (outside)
      throw new IssuerError(
        'rejected',
        `${this.what}: ${outside.name} is not in the zone ${target.zone} it updates`,
      );
    try {
      await sendDnsUpdate({ host: target.host, port: target.port }, target.zone, updates, target.key);
    } catch (error) {
      if (!(error instanceof DnsUpdateError)) throw error;
      const kind = error.rcode === null || error.rcode === 'SERVFAIL' ? 'unavailable' : 'misconfigured';
      throw new IssuerError(kind, `${this.what}: dns: ${error.message}`);
    }
  }

  private async step<T>(step: AcmeStep, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw acmeFailure(error, step, this.what);
    }
  }
}

function text(config: Record<string, unknown>, name: string): string {
  return typeof config[name] === 'string' ? (config[name] as string) : '';
}

function hostPort(value: string): { host: string; port: number } {
  const address = dnsServerAddress(value);
  if (!address) throw new IssuerError('misconfigured', `dns_update_server ${value} is not host[:port]`);
  return address;
}

/** The `acme` kind's entry in the issuer connector registry; eab_hmac_key and tsig_secret are redacted. */
export const acmeIssuerConnectorFactory: IssuerConnectorFactory<AcmeIssuerConfig, AcmeIssuerDependencies> = {
  kind: 'acme',
  capabilities: CAPABILITIES,
  validateConfig(config: unknown): AcmeIssuerConfig {
    const stored = (config ?? {}) as Record<string, unknown>;
    const challengeType = (text(stored, 'challenge_type') || 'dns-persist-01') as AcmeChallengeType;
    const server = text(stored, 'dns_update_server');
    const tsigName = text(stored, 'tsig_name');
    const algorithm = (text(stored, 'tsig_algorithm') || 'hmac-sha256') as TsigAlgorithm;
    if (!TSIG_ALGORITHMS.includes(algorithm))
      throw new IssuerError(
        'misconfigured',
        `tsig_algorithm ${algorithm} is not one of ${TSIG_ALGORITHMS.join(', ')}`,
      );
    return {
      directoryUrl: text(stored, 'directory_url'),
      email: text(stored, 'email'),
      ...(text(stored, 'eab_kid')
        ? { eab: { kid: text(stored, 'eab_kid'), hmacKey: text(stored, 'eab_hmac_key') } }
        : {}),
      challengeType,
      ...(text(stored, 'profile') ? { profile: text(stored, 'profile') } : {}),
      ...(server
        ? {
            dnsUpdate: {
              ...hostPort(server),
              zone: text(stored, 'dns_zone'),
              ...(tsigName
                ? { key: { name: tsigName, algorithm, secret: text(stored, 'tsig_secret') } }
                : {}),
            },
          }
        : {}),
    };
  },
  redact(config: AcmeIssuerConfig): Record<string, unknown> {
    return {
      directory_url: config.directoryUrl,
      email: config.email,
      eab_kid: config.eab?.kid,
      eab_hmac_key: config.eab ? '********' : undefined,
      challenge_type: config.challengeType,
      profile: config.profile,
    };
  },
  create(config, dependencies) {
    return new AcmeIssuerConnector(config, dependencies);
  },
};
