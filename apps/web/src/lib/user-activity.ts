/**
 * Whether the person at the GUI did anything lately (ADR 0017 amendment). A request sent with no
 * input for longer than INPUT_WINDOW_MS is the GUI's own work (the bell's poll, a running scan's
 * refresh, a refetch on reconnect) and carries `X-Certlane-Background: 1`, so the server checks
 * the session but does not count the request as use of it: a console left on screen still ends
 * at the idle timeout, and then its next poll's 401 returns it to the sign-in page. The flag can
 * only shorten a session, so the server may believe it; it never believes a claim of activity
 * beyond the requests themselves.
 */
export const BACKGROUND_HEADER = 'X-Certlane-Background';

/** A request this long after the last input still counts as the user's (a click's page load). */
export const INPUT_WINDOW_MS = 10_000;

/** What counts as input: deliberate acts, not a pointer drifting over the page. */
export const INPUT_EVENTS = ['pointerdown', 'keydown', 'wheel', 'touchstart', 'popstate'] as const;

export interface UserActivity {
  /** The user did something now. */
  noted(): void;
  /** No input for longer than INPUT_WINDOW_MS: what is sent now is background work. */
  idle(): boolean;
}

/** Loading the page counts as input (someone opened it). */
export function userActivity(now: () => number): UserActivity {
  let last = now();
  return {
    noted: () => {
      last = now();
    },
    idle: () => now() - last > INPUT_WINDOW_MS,
  };
}

/** The page's activity, on a monotonic clock. */
export const activity = userActivity(() => performance.now());

/** Notes every input event of `target` (the window), before any handler can stop it. */
export function watchUserInput(
  target: Pick<Window, 'addEventListener'>,
  into: UserActivity = activity,
): void {
  for (const type of INPUT_EVENTS) {
    target.addEventListener(type, () => into.noted(), { capture: true, passive: true });
  }
}
