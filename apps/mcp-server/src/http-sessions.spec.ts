import { HttpSessions } from './http-sessions';

const session = () => ({ close: jest.fn(async () => undefined) });

describe('the HTTP sessions', () => {
  afterEach(() => jest.useRealTimers());

  it('holds at most max sessions, counting the ones being opened', () => {
    const sessions = new HttpSessions(2, 60_000);
    expect(sessions.reserve()).toBe(true);
    sessions.add('s-1', session(), 'key-a');
    expect(sessions.reserve()).toBe(true);
    expect(sessions.reserve()).toBe(false);
    sessions.release();
    expect(sessions.reserve()).toBe(true);
    sessions.add('s-2', session(), 'key-a');
    expect(sessions.reserve()).toBe(false);
    sessions.remove('s-1');
    expect(sessions.reserve()).toBe(true);
  });

  it('lets only the key that opened a session use it', () => {
    const sessions = new HttpSessions(4, 60_000);
    const opened = session();
    sessions.reserve();
    sessions.add('s-1', opened, 'key-a');
    expect(sessions.find('s-1', 'key-a')).toBe(opened);
    expect(sessions.find('s-1', 'key-b')).toBe('forbidden');
    expect(sessions.find('s-2', 'key-a')).toBeUndefined();
  });

  it('closes a session idle for idleMs, and not one in use', async () => {
    jest.useFakeTimers();
    const sessions = new HttpSessions(4, 1_000);
    const idle = session();
    const busy = session();
    sessions.reserve();
    sessions.add('idle', idle, 'k');
    sessions.reserve();
    sessions.add('busy', busy, 'k');
    jest.advanceTimersByTime(600);
    expect(sessions.find('busy', 'k')).toBe(busy);
    jest.advanceTimersByTime(600);
    expect(idle.close).toHaveBeenCalledTimes(1);
    expect(busy.close).not.toHaveBeenCalled();
    expect(sessions.find('idle', 'k')).toBeUndefined();
    expect(sessions.size).toBe(1);
    await sessions.closeAll();
    expect(busy.close).toHaveBeenCalledTimes(1);
    expect(sessions.size).toBe(0);
  });
});
