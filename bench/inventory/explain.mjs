// The SQL side of the inventory bench: EXPLAIN (ANALYZE, BUFFERS) of the exact statements GET
// /api/v1/certificates runs (libs/issuance/inventory/src/inventory/certificate-list.query.ts, from
// dist/) for every filter and the deep page, plus the get by id and one expiry-loop batch (rolled
// back). Reports the median execution time of several runs and the plan's scan nodes.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { median, ROOT, round } from '../lib/harness.mjs';

const require = createRequire(import.meta.url);
const distModule = (path) => {
  try {
    return require(join(ROOT, 'dist', path));
  } catch (error) {
    throw new Error(`${path} is missing from dist/: run \`node tools/build.mjs\` first (${error.message})`);
  }
};

/** The list scenarios of the bench: [name, filter, page]. */
export function listScenarios() {
  const first = { page: 1, per_page: 50 };
  return [
    ['no filter', {}, first],
    ['status=Active', { status: 'Active' }, first],
    ['status=Failed', { status: 'Failed' }, first],
    ['environment=prod', { environment: 'prod' }, first],
    ['owner_id=own-0001', { owner_id: 'own-0001' }, first],
    ['team_id=team-001', { team_id: 'team-001' }, first],
    ['issuer_id=iss-local', { issuer_id: 'iss-local' }, first],
    ['deep page (page=10000, per_page=50)', {}, { page: 10_000, per_page: 50 }],
    ['deep page, status=Active (page=10000)', { status: 'Active' }, { page: 10_000, per_page: 50 }],
  ];
}

/** Scan nodes of a JSON plan, like "Index Only Scan on certificates_status (heap fetches 0)". */
function scanNodes(plan, out = []) {
  if (/Scan/.test(plan['Node Type'])) {
    const on = plan['Index Name'] ?? plan['Relation Name'];
    const fetches = plan['Heap Fetches'] !== undefined ? `, heap fetches ${plan['Heap Fetches']}` : '';
    out.push(`${plan['Node Type']} ${on} (rows ${plan['Actual Rows']}${fetches})`);
  }
  for (const child of plan.Plans ?? []) scanNodes(child, out);
  return out;
}

async function explain(db, statement, runs) {
  const times = [];
  let plan;
  for (let i = 0; i < runs; i++) {
    const { rows } = await db.query(
      `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${statement.text}`,
      statement.values,
    );
    const [result] = rows[0]['QUERY PLAN'];
    times.push(result['Execution Time']);
    plan = result;
  }
  // Wall time of the statement itself, as the service would see it (no EXPLAIN instrumentation).
  const wall = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await db.query(statement.text, statement.values);
    wall.push(performance.now() - started);
  }
  return {
    execution_ms_median: round(median(times), 2),
    client_ms_median: round(median(wall), 2),
    scans: scanNodes(plan.Plan),
    shared_buffers_hit: plan.Plan['Shared Hit Blocks'],
    shared_buffers_read: plan.Plan['Shared Read Blocks'],
  };
}

/** Runs every statement `runs` times (after one warming run) and returns their timings and plans. */
export async function explainInventory(db, { runs = 5, targetMs = 50 } = {}) {
  const list = distModule('libs/issuance/inventory/src/inventory/certificate-list.query.js');
  const expiry = distModule('libs/issuance/jobs/src/expiry/expiry.queries.js');
  await db.query('SET search_path TO issuance');
  const results = {};
  for (const [name, filter, page] of listScenarios()) {
    const resolved = { per_page: page.per_page, offset: (page.page - 1) * page.per_page };
    const pageStatement = list.certificateListPageQuery(filter, resolved);
    const countStatement = list.certificateListCountQuery(filter);
    await db.query(pageStatement.text, pageStatement.values);
    await db.query(countStatement.text, countStatement.values);
    const pageResult = await explain(db, pageStatement, runs);
    const countResult = await explain(db, countStatement, runs);
    const total = (await db.query(countStatement.text, countStatement.values)).rows[0].total;
    results[name] = {
      total,
      page: pageResult,
      count: countResult,
      // The two statements run concurrently in the service: the slower one bounds the request.
      under_target: Math.max(pageResult.client_ms_median, countResult.client_ms_median) < targetMs,
    };
  }
  // Keyset alternative to the deep page (an `after` id instead of an OFFSET).
  // What the service runs since ADR 0034: the page as text columns ready for JSON, and deep
  // pages sought from the filter's anchors (one anchor build per filter and TTL).
  const anchorsModule = distModule('libs/issuance/inventory/src/inventory/list-anchors.js');
  for (const [name, filter, page] of listScenarios()) {
    const offset = (page.page - 1) * page.per_page;
    let seek = { offset };
    if (anchorsModule.usesAnchors(offset)) {
      const build = list.certificateListAnchorsQuery(filter, anchorsModule.ANCHOR_SPACING);
      results[`anchor build (${name})`] = { informational: true, page: await explain(db, build, runs) };
      const anchors = (await db.query(build.text, build.values)).rows.map((row) => row.id);
      seek = anchorsModule.seekFromAnchors(offset, anchors);
    }
    const statement = list.certificateListTextPageQuery(filter, { per_page: page.per_page, ...seek });
    await db.query(statement.text, statement.values);
    const json = await explain(db, statement, runs);
    results[`text page (${name})`] = { page: json, under_target: json.client_ms_median < targetMs };
  }
  results['keyset page after mc-0500000, status=Active'] = {
    informational: true,
    page: await explain(db, list.certificateListAfterQuery({ status: 'Active' }, 'mc-0500000', 50), runs),
  };
  results['count, status=Active and environment=prod (COUNT(*))'] = {
    count: await explain(db, list.certificateListCountQuery({ status: 'Active', environment: 'prod' }), runs),
  };
  results['count, status=Active and environment=prod (COUNT(*))'].informational = true;
  // The dashboard (stats.queries.ts), and owners of one team.
  const stats = distModule('libs/issuance/inventory/src/stats/stats.queries.js');
  for (const [name, text, values] of [
    ['stats: certificates by status', stats.CERTIFICATES_BY_STATUS, []],
    ['stats: expiring within 7/30/90 days', stats.EXPIRING_WITHIN, []],
    ['stats: jobs by status', stats.JOBS_BY_STATUS, []],
    ['stats: expiration timeline, 90 days', stats.EXPIRATION_TIMELINE, [90]],
    ['stats: expiration timeline, 365 days', stats.EXPIRATION_TIMELINE, [365]],
    ['stats: issuance rate, 30 days', stats.ISSUANCE_RATE, [30]],
    ['stats: job trends, 30 days', stats.JOB_TRENDS, [30]],
    [
      'owners of team-001, first page',
      'SELECT id, name, email, team_id, created_at, updated_at FROM owners WHERE team_id = $3 ORDER BY id LIMIT $1 OFFSET $2',
      [50, 0, 'team-001'],
    ],
  ]) {
    const page = await explain(db, { text, values }, runs);
    results[name] = { page, under_target: page.client_ms_median < targetMs, informational: true };
  }
  results['get by id'] = {
    page: await explain(
      db,
      {
        text: `SELECT ${list.CERTIFICATE_COLUMNS.join(', ')} FROM certificates WHERE id = $1`,
        values: ['mc-0500000'],
      },
      runs,
    ),
  };
  results['get by id'].under_target = results['get by id'].page.client_ms_median < targetMs;
  // One expiry-loop batch on the seeded table (nothing is due: dates agree with statuses).
  await db.query('BEGIN');
  try {
    results['expiry sweep batch (rolled back)'] = {
      page: await (async () => {
        const now = new Date();
        const [bounds] = (await db.query(expiry.RENEWAL_WINDOW_BOUNDS, [now])).rows;
        return explain(
          db,
          { text: expiry.EXPIRY_BATCH, values: [now, 1000, bounds.widest, bounds.narrowest] },
          1,
        );
      })(),
    };
  } finally {
    await db.query('ROLLBACK');
  }
  return results;
}
