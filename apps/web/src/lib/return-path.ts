/**
 * Where to go after sign-in: the path the user was sent away from (kept in history state by the
 * layout), if it is a path of this app; `/` otherwise. A path starting `//` or `/\` names another
 * host (`https://certlane.example//evil.example/x` reaches the app as the path
 * `//evil.example/x`), which React Router refuses to navigate to by throwing while rendering, so
 * it must never get that far; encoded slashes (`/%2F%2F...`) are refused too rather than trusted
 * to stay encoded.
 */
export function returnPath(from: unknown, origin: string): string {
  if (typeof from !== 'string' || !/^\/(?![/\\])/.test(from)) return '/';
  let decoded: string;
  try {
    decoded = decodeURIComponent(from);
  } catch {
    return '/';
  }
  if (!/^\/(?![/\\])/.test(decoded)) return '/';
  const url = new URL(from, origin);
  if (url.origin !== origin) return '/';
  return url.pathname + url.search + url.hash;
}
