import { X509Certificate } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import { request as httpRequest, IncomingMessage, RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, LookupFunction } from 'node:net';
import { Inject, Injectable } from '@nestjs/common';
import { X509Certificates } from '@peculiar/x509';
import { SCEP_PROBE_MAX_BYTES, SCEP_PROBE_TIMEOUT_MS } from '@certlane/contracts';
import {
  checkDestination,
  Cidr,
  keyAlgorithmText,
  parseAllowList,
  parseScepCapabilities,
  ScepCapabilities,
} from '@certlane/health-monitor-domain';
import { CERTLANE_CONFIG, CertlaneConfig } from '@certlane/platform';
import { certificateTime } from '../health-checks/peer-certificate';

/** What one probe found, before it is stored. */
export interface ScepProbeFindings extends ScepCapabilities {
  target_url: string;
  reachable: boolean;
  ca_subject: string | null;
  ca_issuer: string | null;
  ca_not_before: Date | null;
  ca_not_after: Date | null;
  key_algorithm: string | null;
  chain_length: number;
  probe_duration_ms: number;
  error: string | null;
}

export type Resolver = (host: string) => Promise<{ address: string; family: number }[]>;

class ProbeRefusal extends Error {}

const NO_CAPS = parseScepCapabilities('');

/**
 * GetCACaps and GetCACert against a SCEP server (spec 2.17, 4.9, 8): 30 s for the whole probe,
 * at most 1 MB per answer, and the reserved-address check at dial time: the socket's own lookup
 * resolves the host, judges every answer and connects to the judged address, so a name that
 * resolves differently later (DNS rebinding) cannot redirect the connection. No redirects.
 */
@Injectable()
export class ScepProber {
  private readonly allowList: Cidr[];
  /** Tests swap the resolver to play DNS answers (rebinding); shorten the timeout for slow servers. */
  resolver: Resolver = (host) => lookup(host, { all: true, verbatim: true });
  timeoutMs = SCEP_PROBE_TIMEOUT_MS;

  constructor(@Inject(CERTLANE_CONFIG) config: CertlaneConfig) {
    this.allowList = parseAllowList(config.networkAllowCidrs.join(','));
  }

  async probe(targetUrl: string): Promise<ScepProbeFindings> {
    const started = performance.now();
    const findings: ScepProbeFindings = {
      target_url: targetUrl,
      reachable: false,
      ...NO_CAPS,
      ca_subject: null,
      ca_issuer: null,
      ca_not_before: null,
      ca_not_after: null,
      key_algorithm: null,
      chain_length: 0,
      probe_duration_ms: 0,
      error: null,
    };
    const finish = (error: string | null) => ({
      ...findings,
      error,
      probe_duration_ms: Math.round(performance.now() - started),
    });
    const url = this.parseUrl(targetUrl);
    if (typeof url === 'string') return finish(url);
    const deadline = AbortSignal.timeout(this.timeoutMs);
    try {
      const caps = await this.get(url, 'GetCACaps', deadline);
      findings.reachable = true;
      if (caps.status === 200) Object.assign(findings, parseScepCapabilities(caps.body.toString('utf8')));
      const cert = await this.get(url, 'GetCACert', deadline);
      if (cert.status !== 200) return finish(`GetCACert answered HTTP ${cert.status}`);
      Object.assign(findings, describeCaCertificates(cert.body));
      return finish(caps.status === 200 ? null : `GetCACaps answered HTTP ${caps.status}`);
    } catch (error) {
      if (deadline.aborted) return finish(`no answer within ${this.timeoutMs} ms`);
      return finish((error as Error).message);
    }
  }

  private parseUrl(text: string): URL | string {
    if (text.trim() === '') return 'url is empty';
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      return 'url is not a valid absolute URL';
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'url must use http or https';
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (isIP(host)) {
      const verdict = checkDestination(host, this.allowList);
      if (!verdict.allowed) return `refused to connect to ${host}: reserved address (${verdict.reason})`;
    }
    return url;
  }

  /** The lookup the socket calls when it dials: resolve once, judge every answer, hand back the judged one. */
  private readonly dialLookup: LookupFunction = (hostname, options, callback) => {
    this.resolver(hostname)
      .then((answers) => {
        if (answers.length === 0) throw new ProbeRefusal(`${hostname} did not resolve`);
        for (const { address } of answers) {
          const verdict = checkDestination(address, this.allowList);
          if (!verdict.allowed) {
            throw new ProbeRefusal(`refused to connect to ${address}: reserved address (${verdict.reason})`);
          }
        }
        const [first] = answers;
        if ((options as { all?: boolean }).all) {
          (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [first]);
        } else {
          callback(null, first.address, first.family);
        }
      })
      .catch((error: Error) => callback(error as NodeJS.ErrnoException, '', 0));
  };

  private get(url: URL, operation: string, signal: AbortSignal): Promise<{ status: number; body: Buffer }> {
    const target = new URL(url);
    target.searchParams.set('operation', operation);
    const options: RequestOptions = {
      method: 'GET',
      signal,
      lookup: this.dialLookup,
      headers: { accept: '*/*' },
    };
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise((resolve, reject) => {
      const req = send(target, options, (response: IncomingMessage) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > SCEP_PROBE_MAX_BYTES) {
            req.destroy(new Error(`${operation} answer is larger than ${SCEP_PROBE_MAX_BYTES} bytes`));
            return;
          }
          chunks.push(chunk);
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks) }));
        response.on('error', reject);
      });
      req.on('error', reject);
      req.end();
    });
  }
}

const firstLine = (dn: string) => dn.split('\n').join(', ');

/** The CA certificate of a GetCACert answer: one DER certificate, or a certs-only PKCS#7 (CA + RA). */
export function describeCaCertificates(body: Buffer): Partial<ScepProbeFindings> {
  let certificates: X509Certificate[];
  try {
    certificates = [new X509Certificate(body)];
  } catch {
    try {
      certificates = new X509Certificates(body).map((cert) => new X509Certificate(Buffer.from(cert.rawData)));
    } catch {
      throw new Error('GetCACert answer is neither a certificate nor a certs-only PKCS#7');
    }
  }
  if (certificates.length === 0) throw new Error('GetCACert answer holds no certificate');
  const ca = certificates.find((cert) => cert.ca) ?? certificates[0];
  const notBefore = certificateTime(ca.validFrom);
  const notAfter = certificateTime(ca.validTo);
  if (!notBefore || !notAfter)
    throw new Error('GetCACert answer holds a CA certificate whose validity time cannot be read');
  const key = ca.publicKey;
  return {
    ca_subject: firstLine(ca.subject),
    ca_issuer: firstLine(ca.issuer),
    ca_not_before: notBefore,
    ca_not_after: notAfter,
    key_algorithm: keyAlgorithmText(key.asymmetricKeyType, key.asymmetricKeyDetails ?? {}),
    chain_length: certificates.length,
  };
}
