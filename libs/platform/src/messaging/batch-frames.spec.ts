import { frameReplies, isFramed, unframeReplies } from './batch-frames';

const bytes = (text: string) => new TextEncoder().encode(text);
const text = (data: Uint8Array) => new TextDecoder().decode(data);

describe('batch reply frames', () => {
  it('gives back each reply as it was framed, empty ones and multi-byte text included', () => {
    const replies = ['{"ok":true,"data":{"é":"✓"}}', '', '{"ok":false,"error":{"code":"forbidden"}}'];
    const framed = frameReplies(replies.map(bytes));
    expect(isFramed(framed)).toBe(true);
    expect(unframeReplies(framed).map(text)).toEqual(replies);
    expect(unframeReplies(frameReplies([]))).toEqual([]);
  });

  it('tells a framed reply from a plain JSON one', () => {
    expect(isFramed(bytes('{"ok":false,"error":{"code":"internal_error"}}'))).toBe(false);
    expect(isFramed(new Uint8Array())).toBe(false);
  });

  it('reads frames of a reply that sits inside a larger buffer', () => {
    const framed = frameReplies([bytes('ab'), bytes('cde')]);
    const larger = new Uint8Array(framed.length + 7);
    larger.set(framed, 3);
    expect(unframeReplies(larger.subarray(3, 3 + framed.length)).map(text)).toEqual(['ab', 'cde']);
  });

  it('refuses a truncated reply', () => {
    const framed = frameReplies([bytes('abcdef')]);
    expect(() => unframeReplies(framed.subarray(0, framed.length - 1))).toThrow('truncated batch reply');
    expect(() => unframeReplies(framed.subarray(0, 3))).toThrow('truncated batch reply');
  });
});
