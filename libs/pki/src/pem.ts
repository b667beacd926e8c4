import { PkiError } from './errors';

/**
 * PEM (RFC 7468) reading and writing. Reading is lenient about what surrounds the blocks (CRLF or
 * CR line ends, blank lines, trailing newlines, indentation, explanatory text between blocks as
 * `openssl x509 -text` writes it) and strict about the blocks themselves (matching BEGIN/END
 * labels, nothing but base64 inside, no RFC 1421 headers). Lines are scanned one by one, with no
 * backtracking regular expression over the whole input.
 */
export interface PemBlock {
  label: string;
  der: Buffer;
}

/** 1 MiB: a generous bound for a bundle of certificates; single objects use smaller limits. */
export const DEFAULT_MAX_PEM_BYTES = 1024 * 1024;

export const PemLabel = {
  certificate: 'CERTIFICATE',
  certificateRequest: 'CERTIFICATE REQUEST',
  /** The label older tools (Netscape, some Java and Windows tools) write for a CSR. */
  newCertificateRequest: 'NEW CERTIFICATE REQUEST',
  crl: 'X509 CRL',
  publicKey: 'PUBLIC KEY',
  privateKey: 'PRIVATE KEY',
} as const;

const BEGIN = /^-----BEGIN ([\x21-\x2c\x2e-\x7e](?:[- ]?[\x21-\x2c\x2e-\x7e])*)?-----$/;
const END = /^-----END ([\x21-\x2c\x2e-\x7e](?:[- ]?[\x21-\x2c\x2e-\x7e])*)?-----$/;
const BASE64_LINE = /^[A-Za-z0-9+/]*={0,2}$/;

export function checkSize(length: number, maxBytes: number, what: string): void {
  if (length > maxBytes) {
    throw new PkiError('input_too_large', `${what} is ${length} bytes, more than the limit of ${maxBytes}`, {
      object: what,
      size: length,
      limit: maxBytes,
    });
  }
}

function textOf(input: string | Uint8Array): string {
  return typeof input === 'string'
    ? input
    : Buffer.from(input.buffer, input.byteOffset, input.byteLength).toString('latin1');
}

/** Strict base64 (standard alphabet, padding only at the end, whitespace ignored) to bytes. */
export function decodeBase64Strict(text: string, what: string): Buffer {
  const compact = text.replace(/[\s]+/g, '');
  if (compact.length === 0 || compact.length % 4 !== 0 || !BASE64_LINE.test(compact)) {
    throw new PkiError('pem_invalid', `${what}: not valid base64`, { object: what });
  }
  return Buffer.from(compact, 'base64');
}

/** Every PEM block in the input, in order. Fails on a malformed block; text outside blocks is ignored. */
export function parsePemBlocks(
  input: string | Uint8Array,
  options: { maxBytes?: number; what?: string } = {},
): PemBlock[] {
  const what = options.what ?? 'PEM';
  const size = typeof input === 'string' ? Buffer.byteLength(input, 'utf8') : input.byteLength;
  checkSize(size, options.maxBytes ?? DEFAULT_MAX_PEM_BYTES, what);
  const lines = textOf(input).split(/\r\n|\r|\n/);
  const blocks: PemBlock[] = [];
  let label: string | undefined;
  let body: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (label === undefined) {
      if (!line.startsWith('-----BEGIN')) continue;
      const begin = BEGIN.exec(line);
      if (!begin)
        throw new PkiError('pem_invalid', `${what}: malformed BEGIN line ${i + 1}`, {
          object: what,
          line: i + 1,
        });
      label = begin[1] ?? '';
      body = [];
      continue;
    }
    if (line.startsWith('-----END')) {
      const end = END.exec(line);
      if (!end || (end[1] ?? '') !== label) {
        throw new PkiError('pem_invalid', `${what}: END line ${i + 1} does not match BEGIN ${label}`, {
          object: what,
          line: i + 1,
        });
      }
      blocks.push({ label, der: decodeBase64Strict(body.join(''), `${what} (${label})`) });
      label = undefined;
      continue;
    }
    if (line.startsWith('-----')) {
      throw new PkiError('pem_invalid', `${what}: unexpected boundary on line ${i + 1} inside ${label}`, {
        object: what,
        line: i + 1,
      });
    }
    if (line.includes(':')) {
      throw new PkiError('pem_invalid', `${what}: encapsulated headers (RFC 1421) are not supported`, {
        object: what,
        line: i + 1,
      });
    }
    body.push(line);
  }
  if (label !== undefined)
    throw new PkiError('pem_invalid', `${what}: block ${label} has no END line`, { object: what });
  return blocks;
}

/**
 * The DER of one object given as PEM (with one of `labels`), bare base64 (as EST sends it), or DER
 * bytes. Bundles are accepted only when exactly one block has an accepted label.
 */
export function decodeSingle(
  input: string | Uint8Array,
  labels: readonly string[],
  options: { maxBytes: number; what: string },
): Buffer {
  const { what, maxBytes } = options;
  // Base64 and PEM are a third larger than the DER they carry, plus line ends and labels.
  const textLimit = Math.ceil(maxBytes * 1.4) + 4096;
  checkSize(typeof input === 'string' ? Buffer.byteLength(input, 'utf8') : input.byteLength, textLimit, what);
  if (typeof input !== 'string' && input.byteLength > 0 && input[0] === 0x30 && !looksLikeText(input)) {
    // DER of every object handled here starts with a SEQUENCE; PEM and base64 text do not.
    checkSize(input.byteLength, maxBytes, what);
    return Buffer.from(input.buffer, input.byteOffset, input.byteLength);
  }
  const text = textOf(input);
  if (text.includes('-----BEGIN')) {
    const blocks = parsePemBlocks(text, { maxBytes: Number.MAX_SAFE_INTEGER, what });
    const matching = blocks.filter((b) => labels.includes(b.label));
    if (matching.length === 0) {
      throw new PkiError(
        'pem_label_mismatch',
        `${what}: expected a PEM block labelled ${labels.join(' or ')}, found ${blocks.map((b) => b.label).join(', ') || 'none'}`,
        { object: what, expected: labels, found: blocks.map((b) => b.label) },
      );
    }
    if (matching.length > 1) {
      throw new PkiError(
        'pem_invalid',
        `${what}: ${matching.length} ${labels[0]} blocks where one was expected`,
        {
          object: what,
        },
      );
    }
    checkSize(matching[0].der.length, maxBytes, what);
    return matching[0].der;
  }
  if (text.trim().length === 0) throw new PkiError('pem_invalid', `${what}: empty input`, { object: what });
  const der = decodeBase64Strict(text, what);
  checkSize(der.length, maxBytes, what);
  return der;
}

/** Every block with one of `labels` (a chain or bundle), in order; other blocks are ignored. */
export function decodeAll(
  input: string | Uint8Array,
  labels: readonly string[],
  options: { maxBytes?: number; what: string },
): Buffer[] {
  const blocks = parsePemBlocks(input, {
    maxBytes: options.maxBytes ?? DEFAULT_MAX_PEM_BYTES,
    what: options.what,
  });
  const matching = blocks.filter((b) => labels.includes(b.label)).map((b) => b.der);
  if (matching.length === 0) {
    throw new PkiError(
      blocks.length === 0 ? 'pem_invalid' : 'pem_label_mismatch',
      blocks.length === 0
        ? `${options.what}: no PEM block found`
        : `${options.what}: no ${labels.join(' or ')} block among ${blocks.map((b) => b.label).join(', ')}`,
      { object: options.what },
    );
  }
  return matching;
}

function looksLikeText(bytes: Uint8Array): boolean {
  // "0" followed by base64 characters: a bare base64 text that happens to start with '0'.
  const sample = bytes.subarray(0, Math.min(bytes.byteLength, 64));
  for (const b of sample) {
    const base64ish =
      (b >= 0x30 && b <= 0x39) ||
      (b >= 0x41 && b <= 0x5a) ||
      (b >= 0x61 && b <= 0x7a) ||
      b === 0x2b ||
      b === 0x2f ||
      b === 0x3d ||
      b === 0x0a ||
      b === 0x0d ||
      b === 0x20;
    if (!base64ish) return false;
  }
  return true;
}

/** PEM text of one DER object: 64-character lines, LF line ends, a final newline. */
export function toPem(label: string, der: Uint8Array): string {
  const base64 = Buffer.from(der.buffer, der.byteOffset, der.byteLength).toString('base64');
  let body = '';
  for (let i = 0; i < base64.length; i += 64) body += `${base64.slice(i, i + 64)}\n`;
  return `-----BEGIN ${label}-----\n${body}-----END ${label}-----\n`;
}

const PEM_CERTIFICATE_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** `pem` ending with a newline, so PEM texts concatenate into a bundle. */
export function withTrailingNewline(pem: string): string {
  return pem.endsWith('\n') ? pem : `${pem}\n`;
}

/**
 * The CERTIFICATE blocks of a PEM bundle as text, in order, each ending with one newline; text
 * around and between them is dropped. No block is decoded (see `decodeAll` for that).
 */
export function pemCertificateBlocks(pem: string): string[] {
  return (pem.match(PEM_CERTIFICATE_BLOCK) ?? []).map((block) => `${block}\n`);
}
