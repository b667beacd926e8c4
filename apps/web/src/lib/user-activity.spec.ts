import { INPUT_EVENTS, INPUT_WINDOW_MS, userActivity, watchUserInput } from './user-activity';

describe('user activity (which requests keep a session alive)', () => {
  it('counts the page load as input, and what is sent after the window without input as background', () => {
    let now = 1000;
    const activity = userActivity(() => now);
    expect(activity.idle()).toBe(false);
    now += INPUT_WINDOW_MS;
    expect(activity.idle()).toBe(false);
    now += 1;
    expect(activity.idle()).toBe(true);
    activity.noted();
    expect(activity.idle()).toBe(false);
  });

  it('notes clicks, keys, the wheel, touches and history moves, before any handler can stop them', () => {
    const listeners = new Map<string, { listener: () => void; options: unknown }>();
    const target = {
      addEventListener: (type: string, listener: () => void, options: unknown) =>
        listeners.set(type, { listener, options }),
    } as unknown as Window;
    let now = 0;
    const activity = userActivity(() => now);
    watchUserInput(target, activity);
    expect([...listeners.keys()]).toEqual([...INPUT_EVENTS]);
    expect(INPUT_EVENTS).not.toContain('mousemove');
    for (const { listener, options } of listeners.values()) {
      expect(options).toEqual({ capture: true, passive: true });
      now += INPUT_WINDOW_MS + 1;
      expect(activity.idle()).toBe(true);
      listener();
      expect(activity.idle()).toBe(false);
    }
  });
});
