/** One part of a multipart/mixed body: its header block, its Content-Type and its content. */
export interface MultipartPart {
  head: string;
  type: string | undefined;
  content: string;
}

/**
 * A serverkeygen answer (RFC 7030 4.4.2) split as a client reads it: the boundary from the
 * `Content-Type: multipart/mixed; boundary=...` of the response headers (as `curl -D` writes them),
 * then the parts between the first and the closing delimiter (RFC 2046 5.1.1), each split at its
 * blank line. Throws when the headers name no multipart/mixed boundary.
 */
export function multipartMixed(headers: string, body: string): { boundary: string; parts: MultipartPart[] } {
  const boundary = /content-type: multipart\/mixed; boundary=([^\r\n;]+)/i.exec(headers)?.[1];
  if (!boundary) throw new Error(`not a multipart/mixed answer: ${headers.slice(0, 300)}`);
  const parts = body
    .split(`--${boundary}`)
    .slice(1, -1)
    .map((part) => {
      const [head, content] = part.split('\r\n\r\n');
      return { head, type: /Content-Type: ([^\r\n]+)/.exec(head)?.[1], content };
    });
  return { boundary, parts };
}
