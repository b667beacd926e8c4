/** Agents by status, for the dashboard's fleet numbers. */
export function countByStatus<T extends { status: string }>(rows: readonly T[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const row of rows) counts[row.status] = (counts[row.status] ?? 0) + 1;
  return counts;
}
