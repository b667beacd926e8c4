import type { DataSource } from 'typeorm';
import { CERTIFICATES_BY_STATUS, EXPIRING_WITHIN } from './stats.queries';
import { countsByKey, StatsService } from './stats.service';

describe(countsByKey.name, () => {
  it('gives every key, 0 where no row counted it', () => {
    expect(countsByKey(['A', 'B', 'C'], [{ status: 'B', n: 3 }])).toEqual({ A: 0, B: 3, C: 0 });
  });

  it('keeps a key the list does not know rather than losing its rows', () => {
    expect(countsByKey(['A'], [{ status: 'Z', n: 1 }])).toEqual({ A: 0, Z: 1 });
  });
});

describe('StatsService.summary', () => {
  /** A DataSource whose every query waits until the test releases it; counts the summaries run. */
  function gatedDataSource() {
    const gates: (() => void)[] = [];
    let byStatusQueries = 0;
    const dataSource = {
      query: (sql: string) => {
        if (sql === CERTIFICATES_BY_STATUS) byStatusQueries += 1;
        const rows = sql === EXPIRING_WITHIN ? [{ days_7: 0, days_30: 0, days_90: 0 }] : [];
        return new Promise((resolve) => gates.push(() => resolve(rows)));
      },
    };
    const releaseAll = async () => {
      while (gates.length > 0) gates.splice(0).forEach((open) => open());
      await new Promise((resolve) => setImmediate(resolve));
    };
    return { dataSource, releaseAll, computations: () => byStatusQueries };
  }

  it('lets a burst of concurrent callers share computations that started after they asked', async () => {
    const { dataSource, releaseAll, computations } = gatedDataSource();
    const stats = new StatsService(dataSource as unknown as DataSource);
    const first = stats.summary();
    const burst = Array.from({ length: 19 }, () => stats.summary());
    expect(computations()).toBe(1);
    await releaseAll();
    await first;
    // The 19 who came while the first ran share one computation started after it.
    expect(computations()).toBe(2);
    await releaseAll();
    const answers = await Promise.all(burst);
    expect(answers).toHaveLength(19);
    expect(answers.every((answer) => answer.total_certificates === 0)).toBe(true);
    // A later caller starts its own.
    const later = stats.summary();
    expect(computations()).toBe(3);
    await releaseAll();
    await later;
  });
});
