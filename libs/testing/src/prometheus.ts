import { httpsRequest } from './https-client';

/** The Prometheus text a service serves on `/metrics` of `url` (its https origin). */
export async function scrapeMetrics(url: string, ca: string): Promise<string> {
  return (await httpsRequest(`${url}/metrics`, { ca })).text;
}

/**
 * The value of the series `name` whose labels include each of `labels` (`key="value"`), or 0 when
 * the process has not counted it yet.
 */
export function metricValue(text: string, name: string, ...labels: string[]): number {
  const line = text
    .split('\n')
    .find((l) => l.startsWith(`${name}{`) && labels.every((label) => l.includes(label)));
  return Number(line?.split(' ').pop() ?? 0);
}
