import type { FileAnswer } from '@certlane/api-client';

type Content =
  | { type: 'text'; text: string }
  | { type: 'resource'; resource: { uri: string; mimeType: string; blob: string } };
export type ToolResult = { content: Content[]; isError?: boolean };

/** Files larger than this are not handed to an assistant (NDJSON is cut at a whole line instead). */
export const MAX_FILE_BYTES = 1024 * 1024;

export const textResult = (value: unknown, isError = false): ToolResult => ({
  content: [{ type: 'text', text: typeof value === 'string' ? value : JSON.stringify(value, null, 2) }],
  ...(isError ? { isError: true } : {}),
});

/**
 * A file answer as tool content: JSON and text files as text, binary files (DER, PKCS#12) as a
 * base64 `resource` blob named by `uri`. A truncated NDJSON stream keeps its whole lines and says
 * so; any other truncated file is a tool error.
 */
export function fileResult(answer: FileAnswer, uri: string): ToolResult {
  const { mediaType, bytes, truncated } = answer;
  if (truncated && mediaType === 'application/x-ndjson') {
    const text = bytes.subarray(0, bytes.lastIndexOf(0x0a) + 1).toString('utf8');
    const lines = text.split('\n').length - 1;
    return {
      content: [
        { type: 'text', text },
        {
          type: 'text',
          text: `truncated: the first ${lines} lines (${MAX_FILE_BYTES} bytes at most); narrow the export (from, to, limit, category) for the rest`,
        },
      ],
    };
  }
  if (truncated)
    return textResult(
      `the ${mediaType} file is larger than ${MAX_FILE_BYTES} bytes: download it with the CLI`,
      true,
    );
  if (isTextMedia(mediaType)) return textResult(bytes.toString('utf8'));
  return {
    content: [{ type: 'resource', resource: { uri, mimeType: mediaType, blob: bytes.toString('base64') } }],
  };
}

/** Media types handed to an assistant as text: JSON, text/*, PEM, NDJSON and YAML. */
export function isTextMedia(mediaType: string): boolean {
  return (
    mediaType === 'application/json' ||
    mediaType.startsWith('text/') ||
    ['application/x-pem-file', 'application/x-ndjson', 'application/yaml'].includes(mediaType)
  );
}
