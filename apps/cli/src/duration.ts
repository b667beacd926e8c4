const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };

/** `90` (seconds), `90s`, `10m`, `1h`, `500ms` as milliseconds; anything else is undefined. */
export function parseDuration(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  return match ? Number(match[1]) * UNIT_MS[match[2] ?? 's'] : undefined;
}

/** `10 min`, `90 s`: a duration as a person reads it. */
export function formatDuration(ms: number): string {
  return ms >= 60_000 && ms % 60_000 === 0 ? `${ms / 60_000} min` : `${ms / 1000} s`;
}
