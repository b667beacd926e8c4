import { ConfigError } from './config-error';

export function parseBoolean(name: string, raw: string): boolean {
  const value = raw.trim().toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(value)) return true;
  if (['false', '0', 'no', 'off', ''].includes(value)) return false;
  throw new ConfigError(`${name}=${JSON.stringify(raw)} is not a boolean: use true or false`);
}

export function parseInteger(name: string, raw: string, min: number, max: number): number {
  const value = Number(raw.trim());
  if (!/^\s*-?\d+\s*$/.test(raw) || !Number.isSafeInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name}=${JSON.stringify(raw)} must be an integer between ${min} and ${max}`);
  }
  return value;
}

const DURATION_UNITS_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Durations are written like Go's: `500ms`, `30s`, `2m`, `1h`, or combinations such as `1h30m`. */
export function parseDuration(name: string, raw: string): number {
  const text = raw.trim();
  const parts = [...text.matchAll(/(\d+)(ms|s|m|h)/g)];
  if (!text || parts.map((p) => p[0]).join('') !== text) {
    throw new ConfigError(
      `${name}=${JSON.stringify(raw)} is not a duration: write it like 500ms, 30s, 2m or 1h`,
    );
  }
  return parts.reduce((total, [, amount, unit]) => total + Number(amount) * DURATION_UNITS_MS[unit], 0);
}

export function parseList(raw: string): string[] {
  return raw
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item.length > 0);
}

/**
 * Alert thresholds in days (`180,90,30,7,1`): distinct integers between 1 and `max`, at least one;
 * returned from the farthest to the nearest.
 */
export function parseDayThresholds(name: string, raw: string, max: number): number[] {
  const entries = parseList(raw);
  const days = entries.map(Number);
  if (
    entries.length === 0 ||
    entries.some((entry) => !/^\d+$/.test(entry)) ||
    days.some((day) => day < 1 || day > max) ||
    new Set(days).size !== days.length
  ) {
    throw new ConfigError(
      `${name}=${JSON.stringify(raw)} must be a comma-separated list of distinct whole days between 1 and ${max}, such as 180,90,30,7,1`,
    );
  }
  return days.sort((a, b) => b - a);
}

export function parseEnum<T extends string>(name: string, raw: string, allowed: readonly T[]): T {
  const value = raw.trim().toLowerCase() as T;
  if (!allowed.includes(value)) {
    throw new ConfigError(`${name}=${JSON.stringify(raw)} is not valid: use one of ${allowed.join(', ')}`);
  }
  return value;
}
