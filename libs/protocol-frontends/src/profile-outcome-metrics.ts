import { Counter, Registry } from 'prom-client';

/** One tick of a profile's counter (spec 6.4): the outcome, and how many (one unless batched). */
export interface ProfileOutcomeTick {
  profileId: string;
  outcome: string;
  count?: number;
}

/**
 * The per-profile outcome counters of EST or SCEP (spec 6.4) as a Prometheus series of this
 * process, `certlane_<protocol>_outcomes_total{profile,outcome}`: the stored counters are the
 * whole system's, these what this replica answered, for rates and alerts. Children are cached.
 */
export function profileOutcomeMetrics(
  registry: Registry,
  protocol: 'est' | 'scep',
): (tick: ProfileOutcomeTick) => void {
  const name = `certlane_${protocol}_outcomes_total`;
  const counter =
    (registry.getSingleMetric(name) as Counter<'profile' | 'outcome'> | undefined) ??
    new Counter({
      name,
      help: `${protocol.toUpperCase()} outcomes answered by this process, by profile id and outcome (the counters of spec 6.4)`,
      labelNames: ['profile', 'outcome'],
      registers: [registry],
    });
  const children = new Map<string, { inc(value?: number): void }>();
  return ({ profileId, outcome, count = 1 }) => {
    const key = `${profileId} ${outcome}`;
    let child = children.get(key);
    if (!child) children.set(key, (child = counter.labels({ profile: profileId, outcome })));
    child.inc(count);
  };
}
