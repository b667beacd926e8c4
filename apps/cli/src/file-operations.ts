import { pipeline } from 'node:stream/promises';
import { Transform } from 'node:stream';
import { createWriteStream, existsSync, renameSync, unlinkSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { ApiClient } from '@certlane/api-client';
import { CliIo } from './cli-io';
import { UsageError } from './exit-codes';
import { OperationRequest } from './operation-runner';
import { isText, writePrivateFile } from './output/file-output';
import { Progress } from './progress';

export interface FileTarget {
  file?: string;
  overwrite: boolean;
}

/** Files (PEM, PKCS#12, a CRL) are read whole; none comes near this. */
const MAX_FILE_BYTES = 256 * 1024 * 1024;

/** Operations whose answer arrives as a stream of lines (read as it comes, never whole). */
const STREAMED = new Set(['exportAudit']);

/**
 * A file or stream operation: its bytes to `--file` (0600, whole or not at all) or to stdout;
 * binary never to a terminal.
 */
export async function runFileOperation(
  client: ApiClient,
  io: CliIo,
  request: OperationRequest,
  target: FileTarget,
): Promise<void> {
  const input = { path: request.path, query: request.query, body: request.body } as never;
  if (STREAMED.has(request.operationId)) return streamTo(client, io, request, target, input);
  const answer = await client.download(request.operationId, input, { maxBytes: MAX_FILE_BYTES });
  if (answer.truncated)
    throw new Error(`${request.commandLine}: the answer is larger than ${MAX_FILE_BYTES} bytes`);
  if (target.file) {
    writePrivateFile(target.file, answer.bytes, target.overwrite);
    io.stderr.write(`wrote ${answer.bytes.length} bytes (${answer.mediaType}) to ${target.file}\n`);
    return;
  }
  if (io.stdout.isTTY && !isText(answer.mediaType))
    throw new UsageError(`${request.commandLine} answers ${answer.mediaType}: pass -f FILE or pipe it`);
  io.stdout.write(answer.bytes);
}

/** Streams the answer, counting lines on a terminal; to a file through a 0600 temporary file. */
async function streamTo(
  client: ApiClient,
  io: CliIo,
  request: OperationRequest,
  target: FileTarget,
  input: never,
): Promise<void> {
  const progress = new Progress(io.stderr);
  let lines = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      for (const byte of chunk) if (byte === 10) lines++;
      progress.update(`${lines} lines`);
      done(null, chunk);
    },
  });
  const response = await client.stream(request.operationId, input);
  if (!target.file) {
    await pipeline(response, counter, io.stdout, { end: false });
    progress.done();
    return;
  }
  if (!target.overwrite && existsSync(target.file))
    throw new UsageError(`${target.file} exists: pass --overwrite to replace it`);
  const temporary = join(dirname(target.file), `.${basename(target.file)}.${process.pid}.tmp`);
  try {
    await pipeline(response, counter, createWriteStream(temporary, { mode: 0o600, flags: 'wx' }));
  } catch (error) {
    unlinkSync(temporary);
    throw error;
  }
  renameSync(temporary, target.file);
  progress.done(`wrote ${lines} lines to ${target.file}`);
}
