import { Counter, Histogram, Registry } from 'prom-client';

/** What the ACME server reports as it works (ADR 0053 amendment, ninth stop). */
export interface AcmeObserver {
  /** A problem document answered (RFC 8555 6.7), by its type without the URN prefix. */
  problem(type: string): void;
  orderCreated(profileId: string): void;
  /** One validation attempt of a challenge: its outcome and how long it took. */
  validation(type: string, result: 'valid' | 'invalid' | 'retry', seconds: number): void;
  certificateIssued(profileId: string): void;
}

/** `metric` from `registry`, made once: two servers of one process share its series. */
function once<T>(registry: Registry, name: string, make: () => T): T {
  return (registry.getSingleMetric(name) as T | undefined) ?? make();
}

/**
 * The ACME series on a process's Prometheus registry. Label-bound children are cached, so the
 * request path pays a map lookup and an increment.
 */
export function acmeMetrics(registry: Registry): AcmeObserver {
  const registers = [registry];
  const problems = once(
    registry,
    'certlane_acme_problems_total',
    () =>
      new Counter({
        name: 'certlane_acme_problems_total',
        help: 'ACME problem documents answered, by problem type (badNonce, rateLimited, ...)',
        labelNames: ['type'],
        registers,
      }),
  );
  const orders = once(
    registry,
    'certlane_acme_orders_created_total',
    () =>
      new Counter({
        name: 'certlane_acme_orders_created_total',
        help: 'ACME orders created, by ACME profile',
        labelNames: ['profile'],
        registers,
      }),
  );
  const validations = once(
    registry,
    'certlane_acme_validations_total',
    () =>
      new Counter({
        name: 'certlane_acme_validations_total',
        help: 'ACME validation attempts, by challenge type and result (valid, invalid, retry)',
        labelNames: ['type', 'result'],
        registers,
      }),
  );
  const validationSeconds = once(
    registry,
    'certlane_acme_validation_duration_seconds',
    () =>
      new Histogram({
        name: 'certlane_acme_validation_duration_seconds',
        help: 'ACME validation attempt duration (the fetch or lookup and the CAA check), by challenge type',
        labelNames: ['type'],
        buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
        registers,
      }),
  );
  const issued = once(
    registry,
    'certlane_acme_certificates_issued_total',
    () =>
      new Counter({
        name: 'certlane_acme_certificates_issued_total',
        help: 'Certificates stored for ACME orders, by ACME profile',
        labelNames: ['profile'],
        registers,
      }),
  );
  const cached = <T>(make: (key: string) => T) => {
    const children = new Map<string, T>();
    return (key: string): T => {
      let child = children.get(key);
      if (!child) children.set(key, (child = make(key)));
      return child;
    };
  };
  const problemOf = cached((type) => problems.labels({ type }));
  const ordersOf = cached((profile) => orders.labels({ profile }));
  const issuedOf = cached((profile) => issued.labels({ profile }));
  const validationOf = cached((key) => {
    const [type, result] = key.split(' ');
    return { count: validations.labels({ type, result }), seconds: validationSeconds.labels({ type }) };
  });
  return {
    problem: (type) => problemOf(type).inc(),
    orderCreated: (profile) => ordersOf(profile).inc(),
    certificateIssued: (profile) => issuedOf(profile).inc(),
    validation: (type, result, seconds) => {
      const child = validationOf(`${type} ${result}`);
      child.count.inc();
      child.seconds.observe(seconds);
    },
  };
}
