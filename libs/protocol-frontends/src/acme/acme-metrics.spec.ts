import { Registry } from 'prom-client';
import { acmeMetrics } from './acme-metrics';

describe(acmeMetrics.name, () => {
  it('counts problems, orders, validations with their duration, and certificates, by label', async () => {
    const registry = new Registry();
    const observe = acmeMetrics(registry);
    observe.problem('badNonce');
    observe.problem('badNonce');
    observe.problem('rateLimited');
    observe.orderCreated('default');
    observe.validation('http-01', 'valid', 0.02);
    observe.validation('dns-01', 'retry', 3);
    observe.certificateIssued('web');
    const text = await registry.metrics();
    expect(text).toContain('certlane_acme_problems_total{type="badNonce"} 2');
    expect(text).toContain('certlane_acme_problems_total{type="rateLimited"} 1');
    expect(text).toContain('certlane_acme_orders_created_total{profile="default"} 1');
    expect(text).toContain('certlane_acme_validations_total{type="http-01",result="valid"} 1');
    expect(text).toContain('certlane_acme_validations_total{type="dns-01",result="retry"} 1');
    expect(text).toContain('certlane_acme_validation_duration_seconds_bucket{le="0.025",type="http-01"} 1');
    expect(text).toContain('certlane_acme_validation_duration_seconds_bucket{le="2.5",type="dns-01"} 0');
    expect(text).toContain('certlane_acme_certificates_issued_total{profile="web"} 1');
  });

  it('shares the series when a second server registers on the same registry', async () => {
    const registry = new Registry();
    acmeMetrics(registry).orderCreated('default');
    acmeMetrics(registry).orderCreated('default');
    expect(await registry.metrics()).toContain('certlane_acme_orders_created_total{profile="default"} 2');
  });
});
