import { MessageBatcher } from './message-batcher';

describe('MessageBatcher', () => {
  it('hands over everything waiting, up to the batch size, in order', async () => {
    const batcher = new MessageBatcher<number>(3);
    for (let n = 1; n <= 5; n++) batcher.push(n);
    expect(await batcher.next()).toEqual([1, 2, 3]);
    expect(await batcher.next()).toEqual([4, 5]);
  });

  it('waits for the first item and does not wait for a full batch', async () => {
    const batcher = new MessageBatcher<string>(10);
    const next = batcher.next();
    batcher.push('a');
    expect(await next).toEqual(['a']);
  });

  it('ends after the waiting items are taken', async () => {
    const batcher = new MessageBatcher<string>(10);
    batcher.push('a');
    batcher.end();
    expect(await batcher.next()).toEqual(['a']);
    expect(await batcher.next()).toBeUndefined();
    const idle = new MessageBatcher<string>(1);
    const pending = idle.next();
    idle.end();
    expect(await pending).toBeUndefined();
  });

  it('refuses a batch size below one', () => {
    expect(() => new MessageBatcher(0)).toThrow(RangeError);
  });
});
