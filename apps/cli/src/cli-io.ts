import type { Readable, Writable } from 'node:stream';

/** The process's streams and environment, passed in so tests can run the CLI in-process. */
export interface CliIo {
  stdout: Writable & { isTTY?: boolean };
  stderr: NodeJS.WriteStream & { isTTY?: boolean };
  stdin: Readable & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
}

/** Both ends a person sits at: prompts and progress only then. */
export function interactive(io: CliIo): boolean {
  return Boolean(io.stdin.isTTY && io.stderr.isTTY);
}

/** Asks a yes/no question on stderr and reads one line from stdin. */
export function confirm(io: CliIo, question: string): Promise<boolean> {
  io.stderr.write(`${question} [y/N] `);
  return new Promise((resolve) => {
    let answer = '';
    const onData = (chunk: Buffer | string) => {
      answer += chunk.toString();
      if (!answer.includes('\n') && !answer.includes('\r')) return;
      io.stdin.off('data', onData);
      io.stdin.pause();
      resolve(/^\s*y(es)?\s*$/i.test(answer.split(/[\r\n]/)[0]));
    };
    io.stdin.on('data', onData);
    io.stdin.resume();
  });
}

/** Everything on stdin as text (a body file or key given as `-`). */
export async function readAllStdin(io: CliIo): Promise<string> {
  let text = '';
  for await (const chunk of io.stdin) text += chunk.toString();
  return text;
}
