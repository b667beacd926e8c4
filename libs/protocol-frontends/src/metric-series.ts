import { Counter, Histogram, Registry } from 'prom-client';

type LabelValues = Record<string, string>;

/**
 * A counter or histogram of `registry`, made once per process (two servers of one process share
 * its series), read through label-bound children cached by their label values: the request path
 * pays a map lookup.
 */
function series<M extends Counter<string> | Histogram<string>>(
  registry: Registry,
  name: string,
  make: () => M,
): (labels: LabelValues) => ReturnType<M['labels']> {
  const metric = (registry.getSingleMetric(name) as M | undefined) ?? make();
  const children = new Map<string, ReturnType<M['labels']>>();
  return (labels) => {
    const key = Object.values(labels).join('\u0000');
    let child = children.get(key);
    if (!child) children.set(key, (child = metric.labels(labels) as ReturnType<M['labels']>));
    return child;
  };
}

export function counterSeries(
  registry: Registry,
  config: { name: string; help: string; labelNames: string[] },
): (labels: LabelValues) => { inc(value?: number): void } {
  return series(registry, config.name, () => new Counter({ ...config, registers: [registry] }));
}

export function histogramSeries(
  registry: Registry,
  config: { name: string; help: string; labelNames: string[]; buckets: number[] },
): (labels: LabelValues) => { observe(value: number): void } {
  return series(registry, config.name, () => new Histogram({ ...config, registers: [registry] }));
}
