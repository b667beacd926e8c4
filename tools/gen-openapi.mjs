#!/usr/bin/env node
// Generates the API description (spec 9: OpenAPI 3.1.0, version 2.0.0) from the gateway's route
// table and the DTOs, into docs/openapi.json and docs/openapi.yaml; the gateway serves that
// document at GET /api/v1/openapi.json and .yaml (ADR 0049).
//   node tools/gen-openapi.mjs          build, then write the document
//   node tools/gen-openapi.mjs --check  build, then fail when the committed document differs
// Request bodies and query strings: the class-validator metadata of their DTO classes
// (class-validator-jsonschema). Replies: the contracts types the routes name, compiled to JSON
// Schema by ts-json-schema-generator.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import { stringify } from 'yaml';
import { kindConfigSchemas, withConfigByKind } from './openapi-config-schemas.mjs';
import { reachable, withNullableBodies } from './openapi-nullable.mjs';

const require = createRequire(import.meta.url);
const check = process.argv.includes('--check');
const root = resolve(import.meta.dirname, '..');
process.chdir(root);
if (!process.argv.includes('--no-build'))
  execFileSync(process.execPath, ['tools/build.mjs'], { stdio: 'inherit' });

require('reflect-metadata');
const { gatewayRouteTable } = require(`${root}/dist/libs/api-gateway/src/api-gateway.module.js`);
const { buildOpenApiDocument, dtoSchemaName, replyComponentName } = require(
  `${root}/dist/libs/api-gateway/src/openapi/openapi-document.js`,
);
const {
  ErrorCode,
  IS_POLICY_CONFIG,
  IS_RECIPIENT_PUBLIC_JWK,
  POLICY_CONFIG_JSON_SCHEMA,
  RECIPIENT_PUBLIC_JWK_JSON_SCHEMA,
} = require(`${root}/dist/libs/contracts/src/index.js`);
const { getMetadataStorage, ValidationTypes, validateSync } = require('class-validator');
const { plainToInstance } = require('class-transformer');
const { httpStatusFor } = require(`${root}/dist/libs/platform/src/http/error-status.js`);
const { validationMetadatasToSchemas } = require('class-validator-jsonschema');
const { defaultMetadataStorage } = require('class-transformer/cjs/storage');
const { createGenerator } = require('ts-json-schema-generator');

const routes = gatewayRouteTable();
const API_VERSION = '2.0.0';
const SCHEMA_REF = '#/components/schemas/';

/** The JSON Schema of each custom class-validator decorator (a new one must be added here). */
const CUSTOM_VALIDATION_SCHEMAS = {
  [IS_RECIPIENT_PUBLIC_JWK]: RECIPIENT_PUBLIC_JWK_JSON_SCHEMA,
  [IS_POLICY_CONFIG]: POLICY_CONFIG_JSON_SCHEMA,
};
const customValidationSchema = (meta) => {
  const [constraint] = getMetadataStorage().getTargetValidatorConstraints(meta.constraintCls);
  const schema = CUSTOM_VALIDATION_SCHEMAS[constraint?.name];
  if (!schema)
    throw new Error(`no JSON Schema for the custom validation ${constraint?.name} (tools/gen-openapi.mjs)`);
  return schema;
};

// A nested-validated property typed as a plain object reads as a reference to `Object`.
const requestSchemas = JSON.parse(
  JSON.stringify(
    validationMetadatasToSchemas({
      refPointerPrefix: SCHEMA_REF,
      classTransformerMetadataStorage: defaultMetadataStorage,
      additionalConverters: { [ValidationTypes.CUSTOM_VALIDATION]: customValidationSchema },
    }),
  ).replaceAll(`{"$ref":"${SCHEMA_REF}Object"}`, '{"type":"object","additionalProperties":true}'),
);

// Body properties that accept null (an update's "clear", @IsOptional's null) say so (ADR 0049).
{
  const bodyRoots = routes.flatMap((route) =>
    route.operation?.body ? [dtoSchemaName(route.operation.body, requestSchemas)] : [],
  );
  const queryRoots = new Set(
    routes.flatMap((route) =>
      route.operation?.query ? [dtoSchemaName(route.operation.query, requestSchemas)] : [],
    ),
  );
  const classes = new Map();
  for (const target of getMetadataStorage().validationMetadatas.keys())
    if (typeof target === 'function') classes.set(target.name, target);
  // A schema that is also a query (DigestPreviewRequest) stays as it is: a query string has no null.
  const bodies = [...reachable(bodyRoots, requestSchemas, SCHEMA_REF)].filter(
    (name) => !queryRoots.has(name),
  );
  Object.assign(
    requestSchemas,
    withNullableBodies(requestSchemas, bodies, classes, { validateSync, plainToInstance }),
  );
}

function responseSchemas(typeNames) {
  mkdirSync('tmp', { recursive: true });
  const qualify = (name) => name.replace(/[A-Za-z_][A-Za-z0-9_]*/g, (id) => `C.${id}`);
  const source = [
    "import type * as C from '../libs/contracts/src';",
    "import type { ErrorBody } from '../libs/platform/src/http/error-body';",
    'export type ErrorBody_ = ErrorBody;',
    ...typeNames.map((name, i) => `export type Reply${i} = ${qualify(name)};`),
  ].join('\n');
  writeFileSync('tmp/openapi-replies.ts', `${source}\n`);
  const generator = createGenerator({
    path: 'tmp/openapi-replies.ts',
    tsconfig: 'tsconfig.base.json',
    type: '*',
    expose: 'export',
    skipTypeCheck: true,
    jsDoc: 'extended',
    topRef: false,
    sortProps: true,
  });
  const { definitions } = generator.createSchema('*');
  const renamed = JSON.parse(
    JSON.stringify(definitions).replace(/"#\/definitions\/([^"]+)"/g, (_, name) =>
      JSON.stringify(`${SCHEMA_REF}${replyComponentName(decodeURIComponent(name))}`),
    ),
  );
  return Object.fromEntries(
    Object.entries(renamed)
      .filter(([name]) => !/^Reply\d+$|^ErrorBody_$/.test(name))
      .map(([name, schema]) => [replyComponentName(name), schema]),
  );
}

const replyTypes = [
  ...new Set(
    routes
      .flatMap((route) => [route.operation?.response, ...Object.values(route.operation?.alsoStatus ?? {})])
      .filter((name) => typeof name === 'string'),
  ),
].sort();
const replies = responseSchemas(replyTypes);
for (const name of Object.keys(replies)) {
  if (requestSchemas[name] && JSON.stringify(requestSchemas[name]) !== JSON.stringify(replies[name])) {
    // One name, two schemas: a class used as a request DTO and named as a reply.
    throw new Error(`schema ${name} is both a request DTO and a reply type; give the reply its own type`);
  }
}

// Config per target and issuer kind (spec 2.12): the services' own field specs.
const { TARGET_TYPE_SPECS } = require(
  `${root}/dist/libs/deployment-dispatch/domain/src/targets/target-config.js`,
);
const { ISSUER_TYPE_SPECS } = require(`${root}/dist/libs/issuance/domain/src/issuers/issuer-config.js`);
const configSchemas = {
  ...kindConfigSchemas('Target', TARGET_TYPE_SPECS),
  ...kindConfigSchemas('Issuer', ISSUER_TYPE_SPECS),
};
for (const [name, prefix, specs] of [
  ['CreateTargetRequest', 'Target', TARGET_TYPE_SPECS],
  ['TargetChanges', 'Target', TARGET_TYPE_SPECS],
  ['CreateIssuerRequest', 'Issuer', ISSUER_TYPE_SPECS],
  ['IssuerChanges', 'Issuer', ISSUER_TYPE_SPECS],
]) {
  if (!requestSchemas[name]?.properties?.config) throw new Error(`${name} has no config to type per kind`);
  requestSchemas[name] = withConfigByKind(requestSchemas[name], 'type', prefix, Object.keys(specs));
}

const errorCodes = {};
for (const code of Object.values(ErrorCode)) (errorCodes[httpStatusFor(code)] ??= []).push(code);

const document = buildOpenApiDocument({
  routes,
  schemas: { ...requestSchemas, ...replies, ...configSchemas },
  errorCodes,
  version: API_VERSION,
});

const json = `${JSON.stringify(document, null, 2)}\n`;
const yaml = stringify(document, { lineWidth: 0 });
const GENERATED = '// GENERATED by tools/gen-openapi.mjs from docs/openapi.json. Do not edit.\n';

/** Every operation as data, for the typed client and the clients built on it (CLI, MCP). */
function operationTable() {
  const rows = Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => {
      const success = Object.keys(operation.responses).filter((status) => status.startsWith('2'));
      const parameters = operation.parameters ?? [];
      return [
        operation.operationId,
        {
          method: method.toUpperCase(),
          path,
          tag: operation.tags[0],
          summary: operation.summary,
          access: operation['x-certlane-access'],
          pathParams: parameters.filter((p) => p.in === 'path').map((p) => p.name),
          queryParams: parameters.filter((p) => p.in === 'query').map((p) => p.name),
          body: operation.requestBody ? (operation.requestBody.required ? 'required' : 'optional') : 'none',
          success: success.map(Number),
          produces: [
            ...new Set(success.flatMap((status) => Object.keys(operation.responses[status].content ?? {}))),
          ],
        },
      ];
    }),
  );
  rows.sort(([a], [b]) => a.localeCompare(b));
  return (
    GENERATED +
    `/** Every operation of the API description by operationId (spec 9). */\n` +
    `export const OPERATIONS = ${JSON.stringify(Object.fromEntries(rows), null, 2)} as const;\n\n` +
    `export type OperationId = keyof typeof OPERATIONS;\n`
  );
}

const types = `${GENERATED}${astToString(await openapiTS(document, { alphabetize: true }))}`;
const files = {
  'docs/openapi.json': json,
  'docs/openapi.yaml': yaml,
  'libs/api-client/src/generated/openapi-types.ts': types,
  'libs/api-client/src/generated/operations.ts': operationTable(),
};
if (check) {
  const stale = Object.entries(files).filter(([file, text]) => {
    try {
      return readFileSync(file, 'utf8') !== text;
    } catch {
      return true;
    }
  });
  if (stale.length > 0) {
    console.error(
      `${stale.map(([file]) => file).join(', ')} differ from the route table; run node tools/gen-openapi.mjs`,
    );
    process.exit(1);
  }
  console.log(
    `the API description and the client's generated types match the route table (${routes.length} routes)`,
  );
} else {
  mkdirSync('libs/api-client/src/generated', { recursive: true });
  for (const [file, text] of Object.entries(files)) writeFileSync(file, text);
  // The build copied the document it found; the gateway in dist/ serves this one now.
  for (const extension of ['json', 'yaml'])
    copyFileSync(`docs/openapi.${extension}`, `dist/openapi/openapi.${extension}`);
  console.log(
    `wrote docs/openapi.json and docs/openapi.yaml: ${routes.length} routes, ${Object.keys(document.components.schemas).length} schemas`,
  );
}
