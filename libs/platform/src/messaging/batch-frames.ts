/**
 * The reply to a batch of bus requests (ADR 0036): each request's reply, encoded exactly as a
 * single reply is, in a frame of its own, so the caller takes each one's bytes without parsing
 * the others: a marker byte, then per reply a 4-byte big-endian length and the bytes. The marker
 * is 0x00, which no JSON text starts with: a whole-batch error is sent as a plain JSON reply.
 */
export const FRAMED_MARKER = 0x00;

export function frameReplies(replies: readonly Uint8Array[]): Uint8Array {
  const size = replies.reduce((sum, reply) => sum + 4 + reply.length, 1);
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  out[0] = FRAMED_MARKER;
  let at = 1;
  for (const reply of replies) {
    view.setUint32(at, reply.length);
    out.set(reply, at + 4);
    at += 4 + reply.length;
  }
  return out;
}

export function isFramed(data: Uint8Array): boolean {
  return data.length > 0 && data[0] === FRAMED_MARKER;
}

/** The replies of a framed batch reply, as views into it; throws on a truncated frame. */
export function unframeReplies(data: Uint8Array): Uint8Array[] {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const replies: Uint8Array[] = [];
  let at = 1;
  while (at < data.length) {
    if (at + 4 > data.length) throw new Error('truncated batch reply');
    const length = view.getUint32(at);
    if (at + 4 + length > data.length) throw new Error('truncated batch reply');
    replies.push(data.subarray(at + 4, at + 4 + length));
    at += 4 + length;
  }
  return replies;
}
