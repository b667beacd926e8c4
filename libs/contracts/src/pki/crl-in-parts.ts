import { CertlaneError } from '../errors/certlane-error';
import { ErrorCode } from '../errors/error-codes';
import { CrlDocument, GetCrlRequest } from './revocation-service.dto';

/** One `revocation.v1.get-crl` request over the caller's bus. */
export type AskForCrl = (request: GetCrlRequest) => Promise<CrlDocument>;

/** How many times a CRL read in parts starts again when a new CRL was stored between its parts. */
export const CRL_READ_ATTEMPTS = 5;

/** A CRL as the gateway sends it: its DER and its times and number. */
export interface FetchedCrl {
  document: Omit<CrlDocument, 'crl_base64' | 'part' | 'parts'>;
  der: Buffer;
}

function whole(document: CrlDocument): FetchedCrl {
  const { crl_base64, part: _part, parts: _parts, ...rest } = document;
  return { document: rest, der: Buffer.from(crl_base64, 'base64') };
}

/**
 * The CRL of revocation.v1.get-crl in parts (review H2; ADR 0021 amendment): one bus message
 * cannot hold a CRL above NATS's max_payload (1 MiB by default, about 18,000 revocations), so the
 * gateway asks for part 0, then for the other parts of the CA part 0 named, and joins them. When a
 * part names another CRL number (a CRL was stored between two parts) the read starts again from
 * part 0, at most CRL_READ_ATTEMPTS times (a CRL is rebuilt at most about every 100 ms, and a read
 * takes a few round trips); then 500. A revocation service that does not know `part` yet answers
 * the whole CRL as before.
 */
export async function readCrlInParts(
  ask: AskForCrl,
  request: Omit<GetCrlRequest, 'part'>,
): Promise<FetchedCrl> {
  for (let attempt = 1; ; attempt++) {
    let first: CrlDocument;
    try {
      first = await ask({ ...request, part: 0 });
    } catch (error) {
      if (CertlaneError.refusesField(error, 'part')) return whole(await ask(request));
      throw error;
    }
    if (first.parts === undefined) return whole(first);
    const parts = [Buffer.from(first.crl_base64, 'base64')];
    for (let part = 1; part < first.parts; part++) {
      const next = await ask({ issuer_id: request.issuer_id, ca_id: first.ca_id, part });
      if (next.crl_number !== first.crl_number || next.parts !== first.parts) break;
      parts.push(Buffer.from(next.crl_base64, 'base64'));
    }
    if (parts.length === first.parts) return { document: whole(first).document, der: Buffer.concat(parts) };
    if (attempt >= CRL_READ_ATTEMPTS) {
      throw new CertlaneError(
        ErrorCode.Internal,
        `the CRL of ${request.issuer_id} changed ${attempt} times while it was read in parts`,
      );
    }
  }
}
