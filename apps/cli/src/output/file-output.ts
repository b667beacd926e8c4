import {
  closeSync,
  constants,
  fsyncSync,
  openSync,
  renameSync,
  unlinkSync,
  writeSync,
  existsSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { UsageError } from '../exit-codes';

/**
 * Writes a file readable by its owner only (0600), whole or not at all: into a new temporary
 * file beside it (O_EXCL, so nothing else's file is opened), then renamed over. An existing
 * file is kept unless `overwrite`.
 */
export function writePrivateFile(path: string, content: Buffer | string, overwrite: boolean): void {
  if (!overwrite && existsSync(path)) throw new UsageError(`${path} exists: pass --overwrite to replace it`);
  const temporary = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
  const fd = openSync(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
  try {
    writeAll(fd, typeof content === 'string' ? Buffer.from(content) : content);
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    unlinkSync(temporary);
    throw error;
  }
  closeSync(fd);
  renameSync(temporary, path);
}

/** `write(2)` may write less than asked; what is left is written until nothing is. */
export function writeAll(
  fd: number,
  bytes: Uint8Array,
  write: (fd: number, bytes: Uint8Array, offset: number, length: number) => number = writeSync,
): void {
  for (let offset = 0; offset < bytes.length;) {
    const written = write(fd, bytes, offset, bytes.length - offset);
    if (written <= 0) throw new Error(`could not write to the file (${bytes.length - offset} bytes left)`);
    offset += written;
  }
}

const TEXT_TYPES = /^(text\/|application\/(json|x-pem-file|yaml|x-ndjson|pem-certificate-chain))/;

/** Whether an answer of this media type can go to a terminal as it is. */
export function isText(contentType: string): boolean {
  return TEXT_TYPES.test(contentType);
}
