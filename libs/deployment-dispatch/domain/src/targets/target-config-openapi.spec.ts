import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import { TargetType } from '@certlane/contracts';
import { isSecretConfigKey, TARGET_TYPE_SPECS, TargetFieldSpec, validateTargetConfig } from './target-config';

const document = JSON.parse(readFileSync(join(__dirname, '../../../../../docs/openapi.json'), 'utf8'));
const ajv = new Ajv2020({ strict: false, validateFormats: false });
ajv.addSchema({ $id: 'urn:certlane:openapi', components: document.components });

/** A value each spec type accepts. */
function sample(field: TargetFieldSpec): unknown {
  switch (field.type) {
    case 'path':
      return '/etc/ssl/site.pem';
    case 'https_url':
      return 'https://example.com';
    case 'integer':
      return field.min ?? 1;
    case 'boolean':
      return true;
    case 'enum':
      return field.values![0];
    case 'fingerprint':
      return `SHA256:${'A'.repeat(43)}`;
    case 'command':
      return 'systemctl reload nginx';
    default:
      return 'value';
  }
}

/** The per-kind config schemas of the API description (issue 18, spec 2.12) say what the service checks. */
describe('the target config schemas of the API description', () => {
  const kinds = Object.keys(TARGET_TYPE_SPECS) as TargetType[];

  it.each(kinds)('%s: the same keys, required ones and secret keys write-only', (kind) => {
    const schema = document.components.schemas[`TargetConfig_${kind}`];
    const fields = TARGET_TYPE_SPECS[kind].fields;
    expect(Object.keys(schema.properties).sort()).toEqual(Object.keys(fields).sort());
    expect((schema.required ?? []).sort()).toEqual(
      Object.keys(fields)
        .filter((name) => fields[name].required)
        .sort(),
    );
    for (const name of Object.keys(fields)) {
      expect(schema.properties[name].writeOnly === true).toBe(isSecretConfigKey(name));
    }
  });

  it.each(kinds)('%s: a config the service accepts validates, an unknown key is refused by both', (kind) => {
    const validate = ajv.compile({ $ref: `urn:certlane:openapi#/components/schemas/TargetConfig_${kind}` });
    const fields = TARGET_TYPE_SPECS[kind].fields;
    const config = Object.fromEntries(
      Object.entries(fields)
        .filter(([, field]) => field.required)
        .map(([name, field]) => [name, sample(field)]),
    );
    // ssh: the key its auth method needs.
    if (kind === 'ssh') config.private_key = 'a key';
    expect(validateTargetConfig(kind, config)).toEqual([]);
    expect(validate(config)).toBe(true);
    expect(validateTargetConfig(kind, { ...config, no_such_key: 'x' })).not.toEqual([]);
    expect(validate({ ...config, no_such_key: 'x' })).toBe(false);
  });

  it('types the config of a target request by its type', () => {
    const request = document.components.schemas.CreateTargetRequest;
    const branch = request.allOf.find(
      (entry: { if: { properties: { type: { const: string } } } }) =>
        entry.if.properties.type.const === 'nginx',
    );
    expect(branch.then.properties.config).toEqual({ $ref: '#/components/schemas/TargetConfig_nginx' });
    expect(request.allOf).toHaveLength(kinds.length);
  });
});
