import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { gatewayRouteTable } from '../api-gateway.module';
import { operationsWithoutRoute, routesWithoutFacts, routesWithoutOperation } from './document-checks';

const documentPath = join(__dirname, '../../../../docs/openapi.json');
const document = JSON.parse(readFileSync(documentPath, 'utf8'));

/** @seriousme/openapi-schema-validator is an ES module, which this jest cannot load: ask node. */
const validate = (file: string): { valid: boolean; errors?: unknown } =>
  JSON.parse(
    execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { Validator } from '@seriousme/openapi-schema-validator';
         const result = await new Validator().validate(${JSON.stringify(file)});
         process.stdout.write(JSON.stringify({ valid: result.valid, errors: result.errors }));`,
      ],
      { encoding: 'utf8' },
    ),
  );

/** The committed API description against the route table (spec 9; ADR 0049). */
describe('the API description (docs/openapi.json)', () => {
  const table = gatewayRouteTable();

  it('is OpenAPI 3.1.0 at version 2.0.0 (spec 9)', () => {
    expect(document.openapi).toBe('3.1.0');
    expect(document.info.version).toBe('2.0.0');
  });

  it('validates with an OpenAPI 3.1 validator, which refuses a broken document', () => {
    expect(validate(documentPath)).toEqual({ valid: true });
    const broken = join(tmpdir(), `openapi-broken-${process.pid}.json`);
    writeFileSync(broken, JSON.stringify({ ...document, paths: { 'no-slash': {} } }));
    try {
      expect(validate(broken).valid).toBe(false);
    } finally {
      rmSync(broken, { force: true });
    }
  });

  it('gives every route of the table its facts and an operation, and has no operation without a route', () => {
    expect(routesWithoutFacts(table)).toEqual([]);
    expect(routesWithoutOperation(table, document)).toEqual([]);
    expect(operationsWithoutRoute(table, document)).toEqual([]);
  });

  it('names every operation once', () => {
    const ids = Object.values(
      document.paths as Record<string, Record<string, { operationId: string }>>,
    ).flatMap((item) => Object.values(item).map((operation) => operation.operationId));
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
    expect(ids).toHaveLength(table.length);
  });
});
