import { POLICY_SEVERITIES, PolicySeverity, PolicyViolationSummary } from '@certlane/contracts';

/** One row of the summary query: a severity's counts, or (severity null) the counts over all. */
export interface ViolationCountRow {
  severity: string | null;
  open: number;
  rules: number;
  certificates: number;
}

/** The summary from the grouped counts: every severity present (0 when none is open). */
export function violationSummaryOf(rows: readonly ViolationCountRow[], now: Date): PolicyViolationSummary {
  const all = rows.find((row) => row.severity === null);
  const bySeverity = Object.fromEntries(POLICY_SEVERITIES.map((severity) => [severity, 0])) as Record<
    PolicySeverity,
    number
  >;
  for (const row of rows) {
    if (row.severity !== null && row.severity in bySeverity)
      bySeverity[row.severity as PolicySeverity] = row.open;
  }
  return {
    open: all?.open ?? 0,
    by_severity: bySeverity,
    rules: all?.rules ?? 0,
    certificates: all?.certificates ?? 0,
    generated_at: now.toISOString(),
  };
}
