import { PassThrough } from 'node:stream';
import { CliIo, confirm } from './cli-io';

const io = (): CliIo & { stdin: PassThrough } => ({
  stdout: new PassThrough(),
  stderr: new PassThrough() as unknown as CliIo['stderr'],
  stdin: new PassThrough(),
  env: {},
});

describe(confirm.name, () => {
  it.each([
    ['y\n', true],
    ['yes\r', true],
    ['n\n', false],
    ['\n', false],
  ])('answers %p as %p', async (typed, expected) => {
    const terminal = io();
    const answer = confirm(terminal, 'Go ahead?');
    terminal.stdin.write(typed);
    expect(await answer).toBe(expected);
  });

  it('takes the end of input (Ctrl-D) as no', async () => {
    const terminal = io();
    const answer = confirm(terminal, 'Go ahead?');
    terminal.stdin.end();
    expect(await answer).toBe(false);
  });

  it('takes a line cut short by the end of input as no, even when it was y', async () => {
    const terminal = io();
    const answer = confirm(terminal, 'Go ahead?');
    terminal.stdin.end('y');
    expect(await answer).toBe(false);
  });
});
