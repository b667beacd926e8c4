import { Registry } from 'prom-client';
import { profileOutcomeMetrics } from './profile-outcome-metrics';

describe(profileOutcomeMetrics.name, () => {
  it('counts each profile and outcome apart, batched ticks by their count', async () => {
    const registry = new Registry();
    const est = profileOutcomeMetrics(registry, 'est');
    const scep = profileOutcomeMetrics(registry, 'scep');
    est({ profileId: 'p1', outcome: 'est_simple_enroll_success' });
    est({ profileId: 'p1', outcome: 'est_simple_enroll_success' });
    est({ profileId: 'p2', outcome: 'est_rate_limited' });
    scep({ profileId: 'p3', outcome: 'pkcs_req_success', count: 3 });
    const text = await registry.metrics();
    expect(text).toContain('certlane_est_outcomes_total{profile="p1",outcome="est_simple_enroll_success"} 2');
    expect(text).toContain('certlane_est_outcomes_total{profile="p2",outcome="est_rate_limited"} 1');
    expect(text).toContain('certlane_scep_outcomes_total{profile="p3",outcome="pkcs_req_success"} 3');
  });
});
