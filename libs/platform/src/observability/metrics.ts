import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';

/** The Prometheus registry of one process, with default Node metrics and HTTP/bus series. */
export class Metrics {
  readonly registry = new Registry();
  readonly httpRequests: Counter<'method' | 'route' | 'status'>;
  readonly httpDuration: Histogram<'method' | 'route'>;
  readonly busRequests: Counter<'subject' | 'outcome'>;

  /**
   * Records one HTTP request. Label-bound children are cached per (method, route, status), so
   * the hot path skips prom-client's label hashing.
   */
  httpObserver(): (method: string, route: string, status: number, seconds: number) => void {
    const children = new Map<string, { count: { inc(): void }; duration: { observe(v: number): void } }>();
    return (method, route, status, seconds) => {
      const key = `${method} ${status} ${route}`;
      let child = children.get(key);
      if (!child) {
        child = {
          count: this.httpRequests.labels({ method, route, status: String(status) }),
          duration: this.httpDuration.labels({ method, route }),
        };
        children.set(key, child);
      }
      child.count.inc();
      child.duration.observe(seconds);
    };
  }

  constructor(service: string) {
    this.registry.setDefaultLabels({ service });
    collectDefaultMetrics({ register: this.registry, prefix: 'certlane_' });
    this.httpRequests = new Counter({
      name: 'certlane_http_requests_total',
      help: 'HTTP requests served, by route pattern and status',
      labelNames: ['method', 'route', 'status'],
      registers: [this.registry],
    });
    this.httpDuration = new Histogram({
      name: 'certlane_http_request_duration_seconds',
      help: 'HTTP request latency, by route pattern',
      labelNames: ['method', 'route'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [this.registry],
    });
    this.busRequests = new Counter({
      name: 'certlane_bus_requests_handled_total',
      help: 'Bus requests handled by this process, by subject and outcome',
      labelNames: ['subject', 'outcome'],
      registers: [this.registry],
    });
  }
}
