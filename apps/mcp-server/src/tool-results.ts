import type { FileAnswer } from '@certlane/api-client';

type Content =
  | { type: 'text'; text: string; annotations?: { audience: ('user' | 'assistant')[]; priority?: number } }
  | { type: 'resource'; resource: { uri: string; mimeType: string; blob: string } };
export type ToolResult = { content: Content[]; isError?: boolean };

/** Files larger than this are not handed to an assistant (NDJSON is cut at a whole line instead). */
export const MAX_FILE_BYTES = 1024 * 1024;

export const textResult = (value: unknown, isError = false): ToolResult => ({
  content: [{ type: 'text', text: typeof value === 'string' ? value : JSON.stringify(value, null, 2) }],
  ...(isError ? { isError: true } : {}),
});

/** Put in the model's copy of an answer in place of a secret the API shows once. */
export const SECRET_PLACEHOLDER = '(secret shown once: given to the user only, not to the model)';

/**
 * An answer holding a secret the API shows once (an API key, an EAB HMAC key, an agent key, a
 * key-encryption key). The model gets the answer with each secret replaced by a placeholder; the
 * secrets come in a second block annotated `audience: ["user"]` (MCP content annotations), which
 * a client shows to its user and need not give the model. The secret is still in the result, as
 * it cannot be asked for again.
 */
export function secretResult(reply: unknown, fields: readonly string[]): ToolResult {
  if (!reply || typeof reply !== 'object' || Array.isArray(reply)) return textResult(reply);
  const record = reply as Record<string, unknown>;
  const shown = fields.filter((field) => typeof record[field] === 'string');
  if (shown.length === 0) return textResult(reply);
  const redacted = { ...record, ...Object.fromEntries(shown.map((field) => [field, SECRET_PLACEHOLDER])) };
  return {
    content: [
      { type: 'text', text: JSON.stringify(redacted, null, 2) },
      {
        type: 'text',
        text: `Store now, it is shown only this once:\n${shown.map((field) => `${field}: ${String(record[field])}`).join('\n')}`,
        annotations: { audience: ['user'], priority: 1 },
      },
    ],
  };
}

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
