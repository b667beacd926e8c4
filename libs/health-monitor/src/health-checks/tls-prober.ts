import { lookup } from 'node:dns/promises';
import { once } from 'node:events';
import { isIP, connect as netConnect, Socket } from 'node:net';
import { connect, createSecureContext } from 'node:tls';
import { Inject, Injectable } from '@nestjs/common';
import { startTls, StartTlsProtocol } from '@certlane/connectors';
import { ServedCertificate } from '@certlane/contracts';
import { checkDestination, Cidr, parseAllowList, ProbeObservation } from '@certlane/health-monitor-domain';
import { CERTLANE_CONFIG, CertlaneConfig } from '@certlane/platform';
import { describePeer } from './peer-certificate';

export const PROBE_TIMEOUT_MS = 10_000;

/** The host's addresses (`dns.lookup`, so /etc/hosts and the system resolver apply). */
export type HostLookup = (host: string) => Promise<{ address: string }[]>;

const systemLookup: HostLookup = (host) => lookup(host, { all: true, verbatim: true });

/**
 * The probe's TLS floor and cipher level: the oldest a server may still speak. A monitor reports
 * what is served, and the endpoints a discovery scan exists to find are the forgotten ones, which
 * speak TLS 1.0 with legacy ciphers; Node's defaults (TLS 1.2, OpenSSL security level 1) turned
 * such a server into a "protocol version" error with no certificate recorded. The protocol spoken
 * is recorded as the result's `tls_version`.
 */
export const PROBE_TLS_OPTIONS = { minVersion: 'TLSv1', ciphers: 'DEFAULT:@SECLEVEL=0' } as const;

export interface ProbeTarget {
  host: string;
  port: number;
  sni: string | null;
  /** The plain-text protocol upgraded with STARTTLS before the handshake; absent: TLS at once. */
  starttls?: StartTlsProtocol | null;
}

export interface ProbeOutcome {
  observation: ProbeObservation;
  handshake_ms: number | null;
  tls_version: string | null;
  chain: ServedCertificate[];
  /** The served leaf as PEM (a certificate is public); null when none was served. */
  leaf_pem?: string | null;
}

/**
 * One TLS handshake to an endpoint: resolves the host once, refuses reserved addresses the
 * allow-list does not name, dials exactly the address it judged (ADR 0057), and records what the
 * server presented. Certificates are not verified: the monitor reports what is served.
 */
@Injectable()
export class TlsProber {
  private readonly allowList: Cidr[];
  /**
   * How long a whole probe may take, name resolution included (tests shorten it for the slow
   * server): a resolver that does not answer must not hold a probe slot or a scan worker longer.
   */
  timeoutMs = PROBE_TIMEOUT_MS;
  /** Name resolution (tests replace it with a resolver that never answers). */
  lookupHost: HostLookup = systemLookup;
  /** The TLS dial (tests wrap it to watch the probe's socket). */
  dial: typeof connect = connect;

  /**
   * One TLS context for every probe: `tls.connect` would otherwise build a new one per
   * connection, which dominated a network scan's CPU (bench/discovery). Nothing is verified, so
   * the context holds no trust store choice that could differ between probes.
   */
  private readonly secureContext = createSecureContext(PROBE_TLS_OPTIONS);

  constructor(@Inject(CERTLANE_CONFIG) config: CertlaneConfig) {
    this.allowList = parseAllowList(config.networkAllowCidrs.join(','));
  }

  async probe(target: ProbeTarget): Promise<ProbeOutcome> {
    const timeoutMs = this.timeoutMs;
    const failed = (error: string): ProbeOutcome => ({
      observation: { kind: 'error', error },
      handshake_ms: null,
      tls_version: null,
      chain: [],
    });
    const deadline = performance.now() + timeoutMs;
    let address: string;
    try {
      address = await this.resolve(target.host, timeoutMs);
    } catch (error) {
      return failed((error as Error).message);
    }
    const servername = target.sni ?? (isIP(target.host) ? undefined : target.host);
    const started = performance.now();
    // The handshake gets what resolution left of the probe's deadline.
    const remainingMs = Math.max(0, Math.round(deadline - started));
    let plain: Socket | undefined;
    if (target.starttls) {
      try {
        plain = await this.upgradable(address, target.port, target.starttls, remainingMs);
      } catch (error) {
        return failed((error as Error).message);
      }
    }
    return new Promise<ProbeOutcome>((resolve) => {
      const socket = this.dial({
        ...(plain ? { socket: plain } : { host: address, port: target.port }),
        servername,
        rejectUnauthorized: false,
        secureContext: this.secureContext,
      });
      const timer = setTimeout(
        () => {
          socket.destroy();
          resolve(failed(`no TLS handshake within ${timeoutMs} ms`));
        },
        Math.max(0, Math.round(deadline - performance.now())),
      );
      // A throw in this listener would be uncaught and end the process: every outcome resolves.
      socket.once('secureConnect', () => {
        clearTimeout(timer);
        const handshake_ms = Math.round(performance.now() - started);
        let outcome: ProbeOutcome;
        try {
          const tls_version = socket.getProtocol();
          const peer = describePeer(socket.getPeerCertificate(true));
          outcome = peer.ok
            ? {
                observation: {
                  kind: 'handshake',
                  fingerprint: peer.fingerprint,
                  notBefore: peer.notBefore,
                  notAfter: peer.notAfter,
                },
                handshake_ms,
                tls_version,
                chain: peer.chain,
                leaf_pem: peer.leafPem,
              }
            : { ...failed(peer.error), handshake_ms, tls_version };
        } catch (error) {
          outcome = { ...failed((error as Error).message), handshake_ms };
        }
        // Closed, not just ended: end() alone waits for the server's side to close, and a server
        // that never closes it kept the probe's socket (a file descriptor) open for good.
        socket.destroySoon();
        resolve(outcome);
      });
      socket.once('error', (error) => {
        clearTimeout(timer);
        socket.destroy();
        resolve(failed(error.message));
      });
    });
  }

  /**
   * A plain connection to the judged address that has been through the protocol's STARTTLS
   * exchange, ready for the handshake; throws (the socket closed) when the server refuses, or
   * when it takes longer than `withinMs`.
   */
  private async upgradable(
    address: string,
    port: number,
    protocol: StartTlsProtocol,
    withinMs: number,
  ): Promise<Socket> {
    const socket = netConnect({ host: address, port });
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`no ${protocol.toUpperCase()} STARTTLS within ${this.timeoutMs} ms`)),
        withinMs,
      );
    });
    try {
      await Promise.race([once(socket, 'connect'), expired]);
      await Promise.race([startTls(socket, protocol), expired]);
      return socket;
    } catch (error) {
      socket.destroy();
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * The one address dialled: every resolved answer must pass, so a mixed answer cannot sneak in.
   * Resolution is bounded by the probe's timeout (a getaddrinfo call cannot be cancelled; the
   * probe stops waiting for it).
   */
  private async resolve(host: string, timeoutMs: number): Promise<string> {
    const answers = isIP(host) ? [{ address: host }] : await this.lookupWithin(host, timeoutMs);
    if (answers.length === 0) throw new Error(`${host} did not resolve`);
    for (const { address } of answers) {
      const verdict = checkDestination(address, this.allowList);
      if (!verdict.allowed)
        throw new Error(`refused to connect to ${address}: reserved address (${verdict.reason})`);
    }
    return answers[0].address;
  }

  private lookupWithin(host: string, timeoutMs: number): Promise<{ address: string }[]> {
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`${host} did not resolve within ${timeoutMs} ms`)),
        timeoutMs,
      );
    });
    return Promise.race([this.lookupHost(host), expired]).finally(() => clearTimeout(timer));
  }
}
