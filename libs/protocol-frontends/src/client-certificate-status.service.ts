import { X509Certificate } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { MESSAGE_BUS, MessageBus } from '@certlane/platform';
import { ClientCertificateStatus, LocalCa } from './client-certificate-status';

const CRL_TIMEOUT_MS = 3_000;
const MAX_CRL_BYTES = 10 * 1024 * 1024;

/** An http(s) CRL, at most `MAX_CRL_BYTES` and `CRL_TIMEOUT_MS`, no redirects. */
export async function fetchCrl(url: string): Promise<Buffer> {
  const response = await fetch(url, { redirect: 'error', signal: AbortSignal.timeout(CRL_TIMEOUT_MS) });
  if (!response.ok || !response.body) throw new Error(`HTTP ${response.status}`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.length;
    if (size > MAX_CRL_BYTES) throw new Error(`larger than ${MAX_CRL_BYTES} bytes`);
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks);
}

/** An http(s) OCSP POST (RFC 6960 A.1), bounded like a CRL fetch. */
export async function fetchOcsp(url: string, request: Buffer): Promise<Buffer> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/ocsp-request' },
    body: request,
    redirect: 'error',
    signal: AbortSignal.timeout(CRL_TIMEOUT_MS),
  });
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  const body = Buffer.from(await response.arrayBuffer());
  if (body.length > 64 * 1024) throw new Error('OCSP response larger than 64 KiB');
  return body;
}

/**
 * This process's one `ClientCertificateStatus` (shared by EST and SCEP, one cache): Certlane's
 * CAs from `issuance.v1.list-cas`, their serials' status from `revocation.v1.get-ocsp-response`.
 */
@Injectable()
export class ClientCertificateStatusService {
  readonly status: ClientCertificateStatus;

  constructor(@Inject(MESSAGE_BUS) bus: MessageBus) {
    this.status = new ClientCertificateStatus({
      localCas: async () => {
        const cas: LocalCa[] = [];
        for (let page = 1; ; page++) {
          const listed = await bus.request('issuance.v1.list-cas', { page, per_page: 100 });
          for (const ca of listed.data)
            if (ca.issuer_id && ca.certificate_pem && ca.status !== 'pending')
              cas.push({
                issuerId: ca.issuer_id,
                caId: ca.id,
                certificate: new X509Certificate(ca.certificate_pem),
              });
          if (listed.data.length < 100 || page * 100 >= listed.total) return cas;
        }
      },
      localOcsp: async (ca, serialHex) =>
        Buffer.from(
          (
            await bus.request('revocation.v1.get-ocsp-response', {
              issuer_id: ca.issuerId,
              ca_id: ca.caId,
              serial_hex: serialHex,
            })
          ).response_base64,
          'base64',
        ),
      fetchCrl,
      fetchOcsp,
    });
  }
}
