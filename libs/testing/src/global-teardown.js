const { readdirSync, readFileSync, rmSync } = require('node:fs');
const { join } = require('node:path');
const { findSecrets, SECRET_SHAPES } = require('./secret-scan');
const { conformanceFindings } = require('./openapi-conformance');

function readRecords(dir, prefix) {
  return readdirSync(dir)
    .filter((file) => file.startsWith(`${prefix}-`))
    .flatMap((file) =>
      readFileSync(join(dir, file), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line)),
    );
}

/**
 * Looks for every recorded secret (env secrets and secret-bearing database columns of each test
 * system) and every generic secret shape in every response body the suite read; fails the run
 * when one is found. Runs after every jest run, whichever test files it included.
 */
function scanResponses(dir) {
  const bodies = readRecords(dir, 'bodies');
  const secrets = new Map();
  for (const { source, secrets: values } of readRecords(dir, 'secrets'))
    for (const value of values) secrets.set(value, source);
  const findings = findSecrets(bodies, secrets);
  process.stdout.write(
    `\nsecret scan: ${bodies.length} response bodies checked against ${secrets.size} recorded secrets and ${SECRET_SHAPES.length} secret shapes: ${findings.length} finding(s)\n`,
  );
  if (findings.length > 0) {
    throw new Error(`secrets found in response bodies:\n${[...new Set(findings)].slice(0, 50).join('\n')}`);
  }
}

/**
 * Checks every response the suite read from a documented route against the API description
 * (docs/openapi.json, ADR 0049): a status or body the document does not describe fails the run.
 */
function checkConformance(dir) {
  const document = JSON.parse(readFileSync(join(__dirname, '../../../docs/openapi.json'), 'utf8'));
  const { checked, findings } = conformanceFindings(document, readRecords(dir, 'bodies'));
  process.stdout.write(
    `API description: ${checked} responses of documented routes checked: ${findings.length} finding(s)\n`,
  );
  if (findings.length > 0) {
    const distinct = [...new Set(findings)];
    if (process.env.CERTLANE_OPENAPI_REPORT)
      require('node:fs').writeFileSync(process.env.CERTLANE_OPENAPI_REPORT, distinct.join('\n'));
    throw new Error(`responses the API description does not describe:\n${distinct.slice(0, 50).join('\n')}`);
  }
}

module.exports = async function globalTeardown() {
  for (const container of globalThis.__CERTLANE_CONTAINERS__ ?? []) await container.stop();
  const dir = process.env.CERTLANE_RESPONSE_AUDIT_DIR;
  if (!dir) return;
  try {
    scanResponses(dir);
    checkConformance(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};
