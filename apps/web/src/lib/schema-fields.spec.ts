import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  changedOnly,
  conditionalProperty,
  createValues,
  fieldErrors,
  formFields,
  htmlPattern,
  initialValues,
  isSecretName,
  JsonSchema,
  requestBody,
  resolveRef,
  secretStored,
} from './schema-fields';

const target = {
  type: 'object',
  required: ['name', 'type'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 255 },
    type: { type: 'string', enum: ['nginx', 'ssh'] },
    port: { type: 'integer', minimum: 1, maximum: 65535 },
    enabled: { type: 'boolean' },
    sans: { type: 'array', items: { type: 'string' } },
    ekus: { type: 'array', items: { type: 'string', enum: ['serverAuth', 'clientAuth'] } },
    config: { type: 'object' },
    api_token: { type: 'string' },
  },
};

describe('formFields', () => {
  it('turns each property into the field and HTML constraints that say the same', () => {
    const fields = formFields(target);
    expect(fields.map((f) => [f.name, f.kind, f.required])).toEqual([
      ['name', 'text', true],
      ['type', 'select', true],
      ['port', 'number', false],
      ['enabled', 'boolean', false],
      ['sans', 'list', false],
      ['ekus', 'multi', false],
      ['config', 'json', false],
      ['api_token', 'secret', false],
    ]);
    expect(fields[0]).toMatchObject({ minLength: 1, maxLength: 255 });
    expect(fields[2]).toMatchObject({ minimum: 1, maximum: 65535, integer: true });
    expect(fields[1].options).toEqual(['nginx', 'ssh']);
  });

  it('draws PEM fields as multi-line text, which a text input would flatten into one refused line', () => {
    const pem = formFields({
      type: 'object',
      properties: {
        certificate_pem: { type: 'string' },
        trust_bundle_pem: { type: 'string' },
        csr: { type: 'string' },
        pem_path: { type: 'string' },
      },
    });
    expect(pem.map((f) => [f.name, f.kind])).toEqual([
      ['certificate_pem', 'multiline'],
      ['trust_bundle_pem', 'multiline'],
      ['csr', 'multiline'],
      ['pem_path', 'text'],
    ]);
    const pemText = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
    expect(requestBody(pem, { certificate_pem: pemText }).body).toEqual({ certificate_pem: pemText.trim() });
  });

  it('follows references', () => {
    const doc = { components: { schemas: { A: { $ref: '#/components/schemas/B' }, B: target } } };
    expect(resolveRef({ $ref: '#/components/schemas/A' }, doc)).toBe(target);
  });

  it('treats password, secret, token and key names as secrets, not key_algorithm', () => {
    expect(['password', 'client_secret', 'api_token', 'private_key'].every(isSecretName)).toBe(true);
    expect(['key_algorithm', 'name', 'endpoint'].some(isSecretName)).toBe(false);
  });
});

describe('what the generic form must not mangle', () => {
  const scan = formFields({
    type: 'object',
    properties: {
      name: { type: 'string' },
      ports: { type: 'array', items: { type: 'integer' } },
      hosts: { type: 'array', items: { type: 'string' } },
      enabled: { type: 'boolean' },
      description: { type: 'string' },
    },
  });

  it("sends a list of integers as numbers (a scan target's ports), and refuses an item that is not one", () => {
    expect(requestBody(scan, { ports: '443, 8443' }).body).toEqual({ ports: [443, 8443], enabled: false });
    expect(requestBody(scan, { ports: '443, https' }).errors).toEqual({ ports: 'must be whole numbers' });
    expect(requestBody(scan, { ports: '44.3' }).errors).toEqual({ ports: 'must be whole numbers' });
  });

  it('takes a pasted column as a list, one item a line', () => {
    expect(
      requestBody(scan, { hosts: 'a.example.test\nb.example.test\n\nc.example.test, d.example.test' }).body
        .hosts,
    ).toEqual(['a.example.test', 'b.example.test', 'c.example.test', 'd.example.test']);
  });

  it('starts `enabled` ticked on create, as the API does when it is left out, and sends it unticked as false', () => {
    expect(createValues(scan)).toEqual({ enabled: true });
    expect(requestBody(scan, { ...createValues(scan), name: 'x' }).body).toEqual({
      name: 'x',
      enabled: true,
    });
    expect(requestBody(scan, { name: 'x', enabled: false }).body).toEqual({ name: 'x', enabled: false });
  });

  it('says how a date-time is read (UTC unless it carries an offset)', () => {
    const [expires] = formFields({
      type: 'object',
      properties: {
        expires_at: {
          oneOf: [
            { type: 'string', format: 'date' },
            { type: 'string', format: 'date-time' },
          ],
        },
      },
    });
    expect(expires).toMatchObject({ kind: 'text', dateTime: true });
  });

  it('draws descriptions as multi-line text, and an SSH private key as a masked multi-line secret', () => {
    expect(scan.find((f) => f.name === 'description')?.kind).toBe('multiline');
    const [key] = formFields({ type: 'object', properties: { private_key: { type: 'string' } } });
    expect(key).toMatchObject({ kind: 'secret', multiline: true });
    const keyText = '-----BEGIN OPENSSH PRIVATE KEY-----\nb3Blbn\n-----END OPENSSH PRIVATE KEY-----\n';
    // Secrets are sent as typed, line breaks included.
    expect(requestBody([key], { private_key: keyText }).body).toEqual({ private_key: keyText });
  });
});

describe('requestBody', () => {
  it('leaves empty fields out and parses numbers, lists and JSON', () => {
    const { body, errors } = requestBody(formFields(target), {
      name: ' web ',
      type: 'nginx',
      port: '443',
      enabled: true,
      sans: 'a.example, b.example,',
      ekus: ['serverAuth'],
      config: '{"path":"/etc/x"}',
      api_token: '',
    });
    expect(errors).toEqual({});
    expect(body).toEqual({
      name: 'web',
      type: 'nginx',
      port: 443,
      enabled: true,
      sans: ['a.example', 'b.example'],
      ekus: ['serverAuth'],
      config: { path: '/etc/x' },
    });
  });

  it('names the field whose value does not parse', () => {
    const { errors } = requestBody(formFields(target), { port: 'x', config: '{' });
    expect(errors).toEqual({ port: 'must be a number', config: 'must be JSON' });
  });
});

describe('fieldErrors', () => {
  it('maps the API validation details to fields', () => {
    expect(
      fieldErrors({
        fields: [
          { field: 'name', message: 'name must be shorter' },
          { field: 'config.path', message: 'bad' },
        ],
      }),
    ).toEqual({ name: 'name must be shorter', config: 'bad', 'config.path': 'bad' });
    expect(fieldErrors(undefined)).toEqual({});
    expect(fieldErrors({ field: 'team_id', id: 'x' }, 'team_id: team "x" does not exist')).toEqual({
      team_id: 'team_id: team "x" does not exist',
    });
  });
});

describe('htmlPattern', () => {
  it('escapes what the v flag reserves in a class, keeping the meaning', () => {
    const id = htmlPattern('^[a-z0-9][a-z0-9._-]{0,127}$')!;
    const re = new RegExp(`^(?:${id})$`, 'v');
    expect(re.test('team-platform')).toBe(true);
    expect(re.test('Not An Id')).toBe(false);
    expect(htmlPattern('^[-a-z]+$')).toBe('^[\\-a-z]+$');
    expect(htmlPattern(undefined)).toBeUndefined();
  });

  it('lets a pattern not anchored at both ends match anywhere, as JSON Schema does', () => {
    const path = new RegExp(`^(?:${htmlPattern('^/')!})$`, 'v');
    expect(path.test('/etc/nginx/site.crt')).toBe(true);
    expect(path.test('relative.crt')).toBe(false);
    expect(new RegExp(`^(?:${htmlPattern('b')!})$`, 'v').test('abc')).toBe(true);
  });
});

describe('edit forms', () => {
  it('start from the record without its secrets, JSON as indented JSON, and send only what changed', () => {
    const fields = formFields(target);
    const record = {
      name: 'web',
      type: 'nginx',
      port: 443,
      enabled: true,
      sans: ['a', 'b'],
      config: { x: 1 },
      api_token: '•',
    };
    const initial = initialValues(fields, record);
    expect(initial).toEqual({
      name: 'web',
      type: 'nginx',
      port: '443',
      enabled: true,
      sans: 'a, b',
      config: '{\n  "x": 1\n}',
    });
    // An object holding a redacted secret is never offered back: sent, it would overwrite it.
    expect(initialValues(fields, { ...record, config: { token: '********' } })).not.toHaveProperty('config');
    const before = requestBody(fields, initial).body;
    const after = requestBody(fields, { ...initial, port: '8443' }).body;
    expect(changedOnly(after, before)).toEqual({ port: 8443 });
  });

  it('send a box cleared as false, since a box left out keeps the stored value', () => {
    const fields = formFields(target);
    const before = requestBody(fields, { name: 'web', enabled: true }).body;
    const after = requestBody(fields, { name: 'web', enabled: false }).body;
    expect(changedOnly(after, before)).toEqual({ enabled: false });
    expect(changedOnly(before, before)).toEqual({});
  });

  it('send an emptied field as emptied (text "", a number null, a list []), since a field left out keeps the stored value', () => {
    const fields = formFields(target);
    const before = requestBody(fields, { name: 'web', port: '443', sans: 'a, b', ekus: ['serverAuth'] }).body;
    const after = requestBody(fields, { name: '', port: '', sans: '', ekus: [] }).body;
    expect(changedOnly(after, before, fields)).toEqual({ name: '', port: null, sans: [], ekus: [] });
    const withConfig = requestBody(fields, { name: 'web', config: '{"x": 1}' }).body;
    expect(changedOnly(requestBody(fields, { name: 'web', config: '' }).body, withConfig, fields)).toEqual({
      config: {},
    });
  });

  it('know a stored secret by its value or by a `<name>_set` flag, and only for secret fields', () => {
    const [secret] = formFields({ properties: { challenge_password: { type: 'string' } } });
    expect(secretStored(secret, { challenge_password_set: true })).toBe(true);
    expect(secretStored(secret, { challenge_password_set: false })).toBe(false);
    expect(secretStored(secret, { challenge_password: '********' })).toBe(true);
    const [plain] = formFields({ properties: { owner: { type: 'string' } } });
    expect(secretStored(plain, { owner: 'x', owner_set: true })).toBe(false);
  });

  it('types a oneOf of strings (a date or a date-time) as text', () => {
    const [field] = formFields({
      properties: {
        not_after: {
          oneOf: [
            { type: 'string', format: 'date' },
            { type: 'string', format: 'date-time' },
          ],
        },
      },
    });
    expect(field.kind).toBe('text');
  });
});

describe('an object of secrets', () => {
  const fields = formFields({
    type: 'object',
    properties: { settings: { type: 'object' }, secrets: { type: 'object' } },
  });

  it('is a masked field parsed as JSON, while other objects stay JSON text', () => {
    expect(fields).toEqual([
      { name: 'settings', kind: 'json', required: false, description: undefined },
      { name: 'secrets', kind: 'secret', json: true, required: false, description: undefined },
    ]);
    expect(requestBody(fields, { secrets: '{"url":"https://hooks.example/x"}' }).body).toEqual({
      secrets: { url: 'https://hooks.example/x' },
    });
    expect(requestBody(fields, { secrets: 'not json' }).errors).toEqual({ secrets: 'must be JSON' });
  });

  it('never starts an edit form with the stored (redacted) secrets', () => {
    expect(initialValues(fields, { secrets: { url: '[redacted]' }, settings: { a: 1 } })).toEqual({
      settings: '{\n  "a": 1\n}',
    });
  });

  it('says secrets are stored when the record names them (a notifier answers secret_fields)', () => {
    const secrets = fields.find((field) => field.name === 'secrets')!;
    expect(secretStored(secrets, { secret_fields: ['url', 'secret'] })).toBe(true);
    expect(secretStored(secrets, { secret_fields: [] })).toBe(false);
  });
});

describe('a config typed per kind', () => {
  const document = {
    components: {
      schemas: {
        TargetConfig_nginx: {
          type: 'object',
          properties: {
            cert_path: { type: 'string', pattern: '^/' },
            key_path: { type: 'string', writeOnly: true, format: 'password' },
            file_mode: { type: 'string', enum: ['0600', '0640'] },
          },
          required: ['cert_path', 'key_path'],
        },
        TargetConfig_haproxy: { type: 'object', properties: { pem_path: { type: 'string' } } },
      },
    },
  };
  const request = {
    type: 'object',
    properties: { type: { type: 'string', enum: ['nginx', 'haproxy'] }, config: { type: 'object' } },
    allOf: ['nginx', 'haproxy'].map((kind) => ({
      if: { properties: { type: { const: kind } }, required: ['type'] },
      then: { properties: { config: { $ref: `#/components/schemas/TargetConfig_${kind}` } } },
    })),
  };

  it('is the schema of the kind chosen, and none before a kind is chosen', () => {
    expect(conditionalProperty(request, 'config', { type: 'haproxy' }, document)).toBe(
      document.components.schemas.TargetConfig_haproxy,
    );
    expect(conditionalProperty(request, 'config', {}, document)).toBeUndefined();
    expect(conditionalProperty(request, 'config', { type: 'caddy' }, document)).toBeUndefined();
  });

  it('draws its keys as fields, write-only ones masked, with their constraints', () => {
    const fields = formFields(conditionalProperty(request, 'config', { type: 'nginx' }, document)!);
    expect(fields.map((field) => [field.name, field.kind, field.required])).toEqual([
      ['cert_path', 'text', true],
      ['key_path', 'secret', true],
      ['file_mode', 'select', false],
    ]);
    expect(fields[0].pattern).toBe('^/');
  });

  it("puts a refusal of the config's keys beside the key and the config", () => {
    const details = { fields: [{ field: 'cert_path', message: 'config.cert_path is required for nginx' }] };
    expect(fieldErrors(details, 'invalid', 'config')).toEqual({
      config: 'config.cert_path is required for nginx',
      'config.cert_path': 'config.cert_path is required for nginx',
    });
  });
});

describe('the SCEP profile form (drawn from the committed API description)', () => {
  const document = JSON.parse(readFileSync(join(__dirname, '../../../../docs/openapi.json'), 'utf8')) as {
    paths: Record<
      string,
      Record<string, { requestBody: { content: Record<string, { schema: JsonSchema }> } }>
    >;
    components: { schemas: Record<string, JsonSchema> };
  };

  it('offers soft-fail and hard-fail for client certificates whose revocation status is unknown, optional', () => {
    const field = formFields(document.components.schemas.CreateScepProfileRequest).find(
      (f) => f.name === 'client_revocation_unknown',
    );
    expect(field).toMatchObject({ kind: 'select', required: false, options: ['soft-fail', 'hard-fail'] });
  });

  it('edits from the update body: the challenge password masked, never prefilled, left out when empty', () => {
    const update = document.paths['/api/v1/admin/scep/profiles/{id}'].post;
    const schema = resolveRef(update.requestBody.content['application/json'].schema, document);
    const fields = formFields(schema);
    const password = fields.find((f) => f.name === 'challenge_password')!;
    expect(password).toMatchObject({ kind: 'secret', required: false });
    const stored = {
      path_id: 'devices',
      owner: 'owner-a',
      client_revocation_unknown: 'soft-fail',
      mtls_enabled: false,
      challenge_password_set: true,
    };
    expect(secretStored(password, stored)).toBe(true);
    const initial = initialValues(fields, stored);
    expect(initial).not.toHaveProperty('challenge_password');
    expect(initial).toMatchObject({ owner: 'owner-a', client_revocation_unknown: 'soft-fail' });
    const before = requestBody(fields, initial).body;
    const after = requestBody(fields, { ...initial, owner: 'owner-b', challenge_password: '' }).body;
    expect(changedOnly(after, before)).toEqual({ owner: 'owner-b' });
  });
});
