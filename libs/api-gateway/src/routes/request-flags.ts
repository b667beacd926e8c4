import { IncomingHttpHeaders } from 'node:http';
import { CertlaneError, DtoClass, ErrorCode } from '@certlane/contracts';
import { validateDto } from '@certlane/platform';

/**
 * A body the JSON parser left unread: it came with another Content-Type, or none (spec 4: "All
 * bodies are JSON unless stated"). Read as no body, it would run the action with its defaults (a
 * revoke meant as removeFromCRL would revoke for good as `unspecified`), so it is refused with 415.
 */
export function assertBodyWasJson(headers: IncomingHttpHeaders, parsed: unknown): void {
  const length = headers['content-length'];
  const sent = headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
  if (parsed === undefined && sent) {
    throw new CertlaneError(
      ErrorCode.UnsupportedMediaType,
      'request bodies are JSON: send them with Content-Type: application/json',
    );
  }
}

/**
 * A body that may be absent altogether (spec 4.2: renew, deploy, revoke, export; 4.5: reject,
 * verify): no body reads as `{}`, anything else is validated like every other body.
 */
export function optionalBody<T extends object>(cls: DtoClass<T>, request: { body?: unknown }): Promise<T> {
  const body = request.body;
  const empty =
    body === undefined ||
    (typeof body === 'object' && body !== null && !Array.isArray(body) && Object.keys(body).length === 0);
  return validateDto(cls, empty ? {} : body);
}

/** `true` or `1` in the query (spec 4.2). */
export const queryFlag = (value: string | undefined): boolean => value === 'true' || value === '1';

/** Renew's force: from the query (`true`/`1`) or the body (`{force: true}`); default false. */
export function renewForce(query: string | undefined, body: boolean | undefined): boolean {
  return queryFlag(query) || body === true;
}

/** A file name for Content-Disposition: the certificate id is already `[a-z0-9._-]`, but be safe. */
export function attachmentName(id: string, extension: string): string {
  return `${id.replace(/[^A-Za-z0-9._-]/g, '_') || 'certificate'}.${extension}`;
}
