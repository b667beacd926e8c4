import { Registry } from 'prom-client';
import { counterSeries } from './metric-series';

/** One tick of a profile's counter (spec 6.4): the outcome, and how many (one unless batched). */
export interface ProfileOutcomeTick {
  profileId: string;
  outcome: string;
  count?: number;
}

/**
 * The per-profile outcome counters of EST or SCEP (spec 6.4) as a Prometheus series of this
 * process, `certlane_<protocol>_outcomes_total{profile,outcome}`: the stored counters are the
 * whole system's, these what this replica answered, for rates and alerts.
 */
export function profileOutcomeMetrics(
  registry: Registry,
  protocol: 'est' | 'scep',
): (tick: ProfileOutcomeTick) => void {
  const outcomes = counterSeries(registry, {
    name: `certlane_${protocol}_outcomes_total`,
    help: `${protocol.toUpperCase()} outcomes answered by this process, by profile id and outcome (the counters of spec 6.4)`,
    labelNames: ['profile', 'outcome'],
  });
  return ({ profileId, outcome, count = 1 }) => outcomes({ profile: profileId, outcome }).inc(count);
}
