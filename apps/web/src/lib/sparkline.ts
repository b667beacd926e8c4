/**
 * The points of a sparkline: values oldest first, spread over `width`, scaled into `height`
 * (the largest value at the top). Missing values (a failed probe has no handshake time) break
 * the line into segments, so a gap is not drawn as a fall to zero.
 */
export function sparklineSegments(
  values: readonly (number | null)[],
  width: number,
  height: number,
): string[] {
  const known = values.filter((value): value is number => value !== null);
  if (known.length === 0) return [];
  const top = Math.max(...known);
  const bottom = Math.min(...known);
  const span = top - bottom || 1;
  const step = values.length > 1 ? width / (values.length - 1) : 0;
  const segments: string[] = [];
  let current: string[] = [];
  values.forEach((value, index) => {
    if (value === null) {
      if (current.length > 0) segments.push(current.join(' '));
      current = [];
      return;
    }
    const x = values.length > 1 ? index * step : width / 2;
    const y = height - ((value - bottom) / span) * height;
    current.push(`${round(x)},${round(y)}`);
  });
  if (current.length > 0) segments.push(current.join(' '));
  return segments;
}

const round = (value: number) => Math.round(value * 10) / 10;
