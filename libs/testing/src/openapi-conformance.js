const Ajv2020 = require('ajv/dist/2020').default;
const addFormats = require('ajv-formats').default;

const BASE = 'urn:certlane:openapi';
/** application/json and the `+json` suffix types; not NDJSON, which is lines of JSON. */
const isJson = (media) => media === 'application/json' || media.endsWith('+json');
const pointer = (segments) =>
  segments.map((s) => String(s).replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

/**
 * Checks recorded responses against the API description (docs/openapi.json): each response of a
 * documented operation must have a documented status, and a JSON body that validates against
 * that status's schema. `responses`: [{method, url, status, contentType, body}]. Responses to
 * paths or methods the document does not have (service ports, relying-party paths, 404/405
 * probes) are not the document's business and are skipped. Returns the findings (strings).
 */
function conformanceFindings(document, responses) {
  const ajv = new Ajv2020({ strict: false, allErrors: false });
  addFormats(ajv);
  ajv.addSchema({ $id: BASE, components: document.components, paths: document.paths });
  const validators = new Map();
  const validatorAt = (segments) => {
    const key = pointer(segments);
    if (!validators.has(key)) validators.set(key, ajv.compile({ $ref: `${BASE}#/${key}` }));
    return validators.get(key);
  };
  const templates = Object.keys(document.paths)
    .map((template) => ({
      template,
      params: (template.match(/\{/g) ?? []).length,
      pattern: new RegExp(`^${template.replace(/[.]/g, '\\.').replace(/\{[^}]+\}/g, '[^/]+')}$`),
    }))
    .sort((a, b) => a.params - b.params);

  const findings = [];
  let checked = 0;
  for (const response of responses) {
    const method = (response.method ?? 'GET').toLowerCase();
    if (method === 'head') continue;
    let pathname;
    try {
      pathname = new URL(response.url).pathname;
    } catch {
      continue;
    }
    const match = templates.find(({ pattern }) => pattern.test(pathname));
    const operation = match && document.paths[match.template][method];
    if (!operation) continue;
    checked += 1;
    const where = `${method.toUpperCase()} ${match.template} (${response.url}) answered ${response.status}`;
    let declared = operation.responses[response.status];
    let segments = ['paths', match.template, method, 'responses', String(response.status)];
    if (!declared) {
      findings.push(`${where}: status not in the document`);
      continue;
    }
    if (declared.$ref) {
      const name = declared.$ref.split('/').pop();
      declared = document.components.responses[name];
      segments = ['components', 'responses', name];
    }
    const mediaTypes = Object.keys(declared.content ?? {});
    if (mediaTypes.length === 0) {
      if (response.body) findings.push(`${where}: a body where the document has none`);
      continue;
    }
    const actual = (response.contentType ?? '').split(';')[0].trim().toLowerCase();
    if (actual && !mediaTypes.includes(actual)) {
      findings.push(`${where}: content type ${actual}, the document has ${mediaTypes.join(', ')}`);
      continue;
    }
    const media = actual || mediaTypes[0];
    if (!isJson(media)) continue;
    let body;
    try {
      body = JSON.parse(response.body);
    } catch {
      findings.push(`${where}: body is not JSON (${JSON.stringify(response.body.slice(0, 80))})`);
      continue;
    }
    const validate = validatorAt([...segments, 'content', media, 'schema']);
    if (!validate(body)) {
      const errors = validate.errors
        .slice(0, 3)
        .map(
          (e) =>
            `${e.instancePath || '/'} ${e.message}${e.params?.additionalProperty ? ` (${e.params.additionalProperty})` : ''}`,
        );
      findings.push(`${where}: body does not match the schema: ${errors.join('; ')}`);
    }
  }
  return { checked, findings };
}

module.exports = { conformanceFindings };
