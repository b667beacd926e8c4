import { writeAll } from './file-output';

describe(writeAll.name, () => {
  it('writes the rest after a short write, until every byte is written', () => {
    const written: number[] = [];
    const shortWrites = (_fd: number, bytes: Uint8Array, offset: number, length: number) => {
      const count = Math.min(3, length);
      written.push(...bytes.subarray(offset, offset + count));
      return count;
    };
    writeAll(7, Buffer.from('0123456789'), shortWrites);
    expect(Buffer.from(written).toString()).toBe('0123456789');
  });

  it('fails rather than loop when nothing can be written', () => {
    expect(() => writeAll(7, Buffer.from('x'), () => 0)).toThrow(/1 bytes left/);
  });
});
