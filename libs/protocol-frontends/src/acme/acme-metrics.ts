import { Registry } from 'prom-client';
import { counterSeries, histogramSeries } from '../metric-series';

/** What the ACME server reports as it works (ADR 0053 amendment, ninth stop). */
export interface AcmeObserver {
  /** A problem document answered (RFC 8555 6.7), by its type without the URN prefix. */
  problem(type: string): void;
  orderCreated(profileId: string): void;
  /** One validation attempt of a challenge: its outcome and how long it took. */
  validation(type: string, result: 'valid' | 'invalid' | 'retry', seconds: number): void;
  certificateIssued(profileId: string): void;
}

/** The ACME series on a process's Prometheus registry. */
export function acmeMetrics(registry: Registry): AcmeObserver {
  const problems = counterSeries(registry, {
    name: 'certlane_acme_problems_total',
    help: 'ACME problem documents answered, by problem type (badNonce, rateLimited, ...)',
    labelNames: ['type'],
  });
  const orders = counterSeries(registry, {
    name: 'certlane_acme_orders_created_total',
    help: 'ACME orders created, by ACME profile',
    labelNames: ['profile'],
  });
  const validations = counterSeries(registry, {
    name: 'certlane_acme_validations_total',
    help: 'ACME validation attempts, by challenge type and result (valid, invalid, retry)',
    labelNames: ['type', 'result'],
  });
  const validationSeconds = histogramSeries(registry, {
    name: 'certlane_acme_validation_duration_seconds',
    help: 'ACME validation attempt duration (the fetch or lookup and the CAA check), by challenge type',
    labelNames: ['type'],
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  });
  const issued = counterSeries(registry, {
    name: 'certlane_acme_certificates_issued_total',
    help: 'Certificates stored for ACME orders, by ACME profile',
    labelNames: ['profile'],
  });
  return {
    problem: (type) => problems({ type }).inc(),
    orderCreated: (profile) => orders({ profile }).inc(),
    certificateIssued: (profile) => issued({ profile }).inc(),
    validation: (type, result, seconds) => {
      validations({ type, result }).inc();
      validationSeconds({ type }).observe(seconds);
    },
  };
}
