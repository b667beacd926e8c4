import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import { IssuerType } from '@certlane/contracts';
import { isSecretKey, ISSUER_TYPE_SPECS, validateIssuerConfig } from './issuer-config';

const document = JSON.parse(readFileSync(join(__dirname, '../../../../../docs/openapi.json'), 'utf8'));
const ajv = new Ajv2020({ strict: false, validateFormats: false });
ajv.addSchema({ $id: 'urn:certlane:openapi', components: document.components });

type Field = (typeof ISSUER_TYPE_SPECS)[IssuerType]['fields'][string];

/** A value each spec type accepts. */
function sample(field: Field): unknown {
  switch (field.type) {
    case 'https_url':
    case 'http_url':
      return 'https://example.com';
    case 'integer':
      return field.min ?? 1;
    case 'boolean':
      return true;
    case 'enum':
      return field.values![0];
    case 'command':
      return '/usr/local/bin/issue';
    default:
      return 'value';
  }
}

/** The per-type issuer config schemas of the API description (issue 18, spec 2.12) say what the service checks. */
describe('the issuer config schemas of the API description', () => {
  const types = Object.keys(ISSUER_TYPE_SPECS) as IssuerType[];

  it.each(types)('%s: the same keys, required ones and secret keys write-only', (type) => {
    const schema = document.components.schemas[`IssuerConfig_${type}`];
    const fields = ISSUER_TYPE_SPECS[type].fields;
    expect(Object.keys(schema.properties).sort()).toEqual(Object.keys(fields).sort());
    expect((schema.required ?? []).sort()).toEqual(
      Object.keys(fields)
        .filter((name) => fields[name].required)
        .sort(),
    );
    for (const name of Object.keys(fields)) {
      expect(schema.properties[name].writeOnly === true).toBe(isSecretKey(name));
    }
  });

  it.each(types)('%s: a config the service accepts validates, an unknown key is refused by both', (type) => {
    const validate = ajv.compile({ $ref: `urn:certlane:openapi#/components/schemas/IssuerConfig_${type}` });
    const config = Object.fromEntries(
      Object.entries(ISSUER_TYPE_SPECS[type].fields)
        .filter(([, field]) => field.required)
        .map(([name, field]) => [name, sample(field)]),
    );
    expect(validateIssuerConfig(type, config)).toEqual([]);
    expect(validate(config)).toBe(true);
    expect(validateIssuerConfig(type, { ...config, no_such_key: 'x' })).not.toEqual([]);
    expect(validate({ ...config, no_such_key: 'x' })).toBe(false);
  });
});
