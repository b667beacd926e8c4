/**
 * A CRL crosses the bus (revocation.v1.get-crl) in parts of at most this many DER bytes when the
 * caller asks for parts: 512 KiB is 699,052 characters of base64, which with the reply's JSON
 * stays well under NATS's default max_payload of 1 MiB (review H2, ADR 0021 amendment).
 */
export const CRL_PART_BYTES = 512 * 1024;

/** How many parts a CRL of `totalBytes` is sent in (at least one, an empty CRL too). */
export function crlPartCount(totalBytes: number, partBytes = CRL_PART_BYTES): number {
  return Math.max(1, Math.ceil(totalBytes / partBytes));
}

/**
 * The bytes of part `part` (0-based) of a CRL of `totalBytes`: its offset and length; a part past
 * the end (the CRL was replaced by a shorter one between two requests) is empty, and the caller
 * sees the new number and starts again.
 */
export function crlPartRange(
  part: number,
  totalBytes: number,
  partBytes = CRL_PART_BYTES,
): { offset: number; length: number } {
  const offset = Math.min(part * partBytes, totalBytes);
  return { offset, length: Math.min(partBytes, totalBytes - offset) };
}

/**
 * The JSON revocation list (GET /api/v1/crl) also crosses the bus in one reply: its entries stop
 * before their JSON passes this many bytes (about 4,900 entries with `iss-local`, 2,700 with
 * 128-character issuer ids and 40-digit serials), however large `limit` is; `total` tells the caller to go on at
 * `offset + entries.length`.
 */
export const LIST_ENTRIES_MAX_BYTES = 768 * 1024;

/**
 * The leading entries whose JSON (as the reply writes them, with a separating comma each) fits in
 * `maxBytes`; always at least one, so a page is never empty while rows remain.
 */
export function entriesWithinBytes<T>(entries: readonly T[], maxBytes = LIST_ENTRIES_MAX_BYTES): T[] {
  let bytes = 0;
  for (let i = 0; i < entries.length; i++) {
    bytes += Buffer.byteLength(JSON.stringify(entries[i]), 'utf8') + 1;
    if (bytes > maxBytes && i > 0) return entries.slice(0, i);
  }
  return entries.slice();
}
