import { FormEvent, useId, useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api, ApiError, unwrap } from '../api/client';
import {
  conditionalProperty,
  fieldErrors,
  FormField,
  formFields,
  FormValues,
  htmlPattern,
  createValues,
  initialValues,
  changedOnly,
  JsonSchema,
  requestBody,
  resolveRef,
  secretStored,
} from '../lib/schema-fields';
import { describeAnswer, pendingApprovalId } from './row-actions';
import { onceSecret, ShownOnce, useOnceSecret } from './shown-once';
import { ErrorNotice } from './widgets';

interface ApiOperation {
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
  parameters?: { name: string; in: string; required?: boolean; schema?: JsonSchema }[];
}

interface ApiDocument {
  paths: Record<string, Record<string, ApiOperation>>;
  components?: { schemas?: Record<string, JsonSchema> };
}

/** The API description the gateway serves, read once when a form first opens. */
function useApiDocument() {
  return useQuery({
    queryKey: ['api-description'],
    queryFn: () => unwrap(api.GET('/api/v1/openapi.json')) as Promise<unknown> as Promise<ApiDocument>,
    staleTime: Infinity,
  });
}

export function Field({
  prefix,
  field,
  value,
  error,
  secretKept,
  onChange,
}: {
  prefix: string;
  field: FormField;
  value: FormValues[string] | undefined;
  error?: string;
  /** A stored secret the field leaves as it is when left empty (write-only: never shown). */
  secretKept?: boolean;
  onChange: (value: FormValues[string]) => void;
}) {
  // Unique per form: a page may hold a create, an edit and a dry-run form at once.
  const id = `${prefix}field-${field.name}`;
  const described = error ? `${id}-error` : undefined;
  // A stored secret is kept when its field is left empty: not required then.
  const required = field.required && !secretKept;
  const label = `${field.name}${required ? ' (required)' : ''}`;
  let control;
  if (field.kind === 'boolean') {
    control = (
      <input
        id={id}
        type="checkbox"
        checked={value === true}
        onChange={(event) => onChange(event.target.checked)}
      />
    );
  } else if (field.kind === 'select') {
    control = (
      <select
        id={id}
        required={field.required}
        value={typeof value === 'string' ? value : ''}
        aria-describedby={described}
        onChange={(event) => onChange(event.target.value)}
      >
        <option value="">{field.required ? 'Choose…' : 'Default'}</option>
        {field.options!.map((option) => (
          <option key={option}>{option}</option>
        ))}
      </select>
    );
  } else if (field.kind === 'multi') {
    const chosen = Array.isArray(value) ? value : [];
    control = (
      <fieldset id={id} aria-describedby={described}>
        <legend className="visually-hidden">{label}</legend>
        {field.options!.map((option) => (
          <label key={option} className="inline">
            <input
              type="checkbox"
              checked={chosen.includes(option)}
              onChange={(event) =>
                onChange(event.target.checked ? [...chosen, option] : chosen.filter((c) => c !== option))
              }
            />{' '}
            {option}
          </label>
        ))}
      </fieldset>
    );
  } else if (field.kind === 'multiline') {
    control = (
      <textarea
        id={id}
        rows={6}
        spellCheck={false}
        required={required}
        minLength={field.minLength}
        maxLength={field.maxLength}
        value={typeof value === 'string' ? value : ''}
        aria-describedby={described}
        onChange={(event) => onChange(event.target.value)}
      />
    );
  } else if (field.kind === 'list' || (field.kind === 'secret' && field.multiline)) {
    // Lists take a pasted column (one item a line); a private key keeps its lines, masked as typed.
    const secret = field.kind === 'secret';
    control = (
      <textarea
        id={id}
        rows={secret ? 4 : 2}
        spellCheck={false}
        autoComplete="off"
        required={required}
        placeholder={
          secret ? (secretKept ? 'set (leave empty to keep)' : undefined) : 'comma or line separated'
        }
        style={secret ? ({ WebkitTextSecurity: 'disc' } as React.CSSProperties) : undefined}
        value={typeof value === 'string' ? value : ''}
        aria-invalid={error ? true : undefined}
        aria-describedby={described}
        onChange={(event) => onChange(event.target.value)}
      />
    );
  } else if (field.kind === 'json') {
    control = (
      <textarea
        id={id}
        rows={3}
        placeholder="{ }"
        required={field.required}
        value={typeof value === 'string' ? value : ''}
        aria-describedby={described}
        onChange={(event) => onChange(event.target.value)}
      />
    );
  } else {
    control = (
      <input
        id={id}
        type={field.kind === 'secret' ? 'password' : field.kind === 'number' ? 'number' : 'text'}
        autoComplete={field.kind === 'secret' ? 'new-password' : 'off'}
        required={required}
        pattern={htmlPattern(field.pattern)}
        minLength={field.minLength}
        maxLength={field.maxLength}
        min={field.minimum}
        max={field.maximum}
        step={field.integer ? 1 : undefined}
        placeholder={
          secretKept
            ? 'set (leave empty to keep)'
            : field.dateTime
              ? '2027-01-31, or 2027-01-31T09:00:00+01:00 (UTC without an offset)'
              : undefined
        }
        value={typeof value === 'string' ? value : ''}
        aria-invalid={error ? true : undefined}
        aria-describedby={described}
        onChange={(event) => onChange(event.target.value)}
      />
    );
  }
  return (
    <div className="form-field">
      <label htmlFor={id}>{label}</label>
      {control}
      {error && (
        <p id={`${id}-error`} className="field-error">
          {error}
        </p>
      )}
    </div>
  );
}

/** The path parameters a form asks for: every `{name}` of the path but `{id}` when it is given. */
function pathParameterFields(
  path: string,
  operation: ApiOperation,
  hasId: boolean,
  options: Record<string, readonly string[]> = {},
): FormField[] {
  return [...path.matchAll(/\{(\w+)\}/g)]
    .map((match) => match[1])
    .filter((name) => !(hasId && name === 'id'))
    .map((name): FormField => {
      const schema = operation.parameters?.find((p) => p.name === name && p.in === 'path')?.schema ?? {};
      const choices = options[name] ?? schema.enum?.map(String);
      return choices
        ? { name, kind: 'select', required: true, options: [...choices] }
        : { name, kind: 'text', required: true, pattern: schema.pattern, maxLength: schema.maxLength };
    });
}

/**
 * A create form drawn from the request body schema of `POST path` in the API description: the
 * browser checks what the schema says, the API's own validation errors show next to their
 * field, and the answer (a key shown once, for example) is reported after it is created. Given
 * a `record`, it is that record's edit form, sent by `method` (PUT, or POST where the API takes
 * its updates so).
 */
export function SchemaForm({
  path,
  title,
  invalidate,
  method = 'POST',
  id,
  record,
  submitLabel = 'Create',
  doneLabel,
  pathOptions,
}: {
  path: string;
  title: string;
  invalidate: string;
  method?: 'POST' | 'PUT';
  id?: string;
  /** The record edited at `path` with `{id}` filled: the form starts from it, only changes are sent. */
  record?: Record<string, unknown>;
  submitLabel?: string;
  /** What the answer is called ("Created.", "Saved." by default). */
  doneLabel?: string;
  /** Choices for path parameters the form asks for (all but `{id}` when `id` is given). */
  pathOptions?: Record<string, readonly string[]>;
}) {
  const document = useApiDocument();
  const queryClient = useQueryClient();
  const prefix = useId();
  const [values, setValues] = useState<FormValues | undefined>();
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [done, setDone] = useState<{ text: string; approvalId?: string }>();
  const [secret, setSecret] = useOnceSecret();
  const editing = record !== undefined;
  const operation = document.data?.paths[path]?.[method.toLowerCase()];
  const schema = operation?.requestBody?.content?.['application/json']?.schema;
  const root = schema && document.data ? resolveRef(schema, document.data) : undefined;
  const fields = root ? formFields(root) : [];
  const pathFields = operation ? pathParameterFields(path, operation, id !== undefined, pathOptions) : [];
  const initial = record && fields.length > 0 ? initialValues(fields, record) : createValues(fields);
  const current = values ?? initial;
  const [pathValues, setPathValues] = useState<FormValues>({});
  // A config typed per kind (a target's or issuer's `type`): its own fields, from the record's kind when editing.
  const storedConfig = (record?.config ?? {}) as Record<string, unknown>;
  const configSchema =
    root && document.data
      ? conditionalProperty(root, 'config', { ...record, ...current }, document.data)
      : undefined;
  const configFields = configSchema ? formFields(configSchema) : [];
  const [configValues, setConfigValues] = useState<FormValues>();
  const currentConfig = configValues ?? (record ? initialValues(configFields, storedConfig) : {});
  const plainFields = configFields.length > 0 ? fields.filter((field) => field.name !== 'config') : fields;
  const send = useMutation({
    // What was sent (typed secrets) and answered (a key shown once) leave the cache with the form.
    gcTime: 0,
    mutationFn: (body: Record<string, unknown>) => {
      const params = { ...pathValues, ...(id !== undefined ? { id } : {}) } as { id: string };
      return method === 'PUT'
        ? unwrap(api.PUT(path as '/api/v1/teams/{id}', { params: { path: params }, body: body as never }))
        : unwrap(
            api.POST(path as '/api/v1/teams/{id}/none' as '/api/v1/teams', {
              params: { path: params } as never,
              body: body as never,
            }),
          );
    },
    onSuccess: (answer) => {
      const approvalId = pendingApprovalId(answer);
      setDone(
        approvalId
          ? {
              text: `Not saved yet: the change waits for approval ${approvalId}, which another person must decide. Nothing changes until it is approved.`,
              approvalId,
            }
          : {
              text: `${doneLabel ?? (editing || method === 'PUT' ? 'Saved.' : 'Created.')} ${describeAnswer(answer)}`,
            },
      );
      setSecret(onceSecret(answer));
      // Nothing typed stays for the next record: a previous target's config (its password too)
      // would otherwise fill the next one of the same kind.
      setValues(undefined);
      setConfigValues(undefined);
      setPathValues({});
      send.reset();
      void queryClient.invalidateQueries({ queryKey: [invalidate] });
    },
    onError: (error) =>
      setErrors(
        error instanceof ApiError
          ? fieldErrors(
              error.details,
              error.message,
              error.code.endsWith('config_invalid') ? 'config' : undefined,
            )
          : {},
      ),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setDone(undefined);
    setSecret(undefined);
    const { body, errors: parseErrors } = requestBody(plainFields, current);
    const config = requestBody(configFields, currentConfig);
    for (const [name, message] of Object.entries(config.errors)) parseErrors[`config.${name}`] = message;
    setErrors(parseErrors);
    if (Object.keys(parseErrors).length > 0) return;
    const changes = editing ? changedOnly(body, requestBody(plainFields, initial).body, plainFields) : body;
    if (configFields.length > 0) {
      // An edit sends the whole config: the stored one (secrets as the API's redaction marker,
      // which keeps them) with what was typed over it; nothing when nothing changed.
      const next = editing ? { ...storedConfig, ...config.body } : config.body;
      const changed = JSON.stringify(next) !== JSON.stringify(editing ? storedConfig : {});
      if (changed) changes.config = next;
    }
    send.mutate(changes);
  };
  return (
    <details className="create">
      <summary>{title}</summary>
      <ErrorNotice error={document.error} />
      {fields.length > 0 && (
        <form onSubmit={submit} aria-label={title}>
          {pathFields.map((field) => (
            <Field
              prefix={prefix}
              key={`path-${field.name}`}
              field={field}
              value={pathValues[field.name]}
              onChange={(value) => setPathValues({ ...pathValues, [field.name]: value })}
            />
          ))}
          {plainFields.map((field) => (
            <Field
              prefix={prefix}
              key={field.name}
              field={field}
              value={current[field.name]}
              error={errors[field.name]}
              secretKept={record !== undefined && secretStored(field, record)}
              onChange={(value) => setValues({ ...current, [field.name]: value })}
            />
          ))}
          {configFields.length > 0 && (
            <fieldset className="config-fields">
              <legend>config of {String(current.type ?? record?.type)}</legend>
              {configFields.map((field) => (
                <Field
                  prefix={`${prefix}config-`}
                  key={field.name}
                  field={field}
                  value={currentConfig[field.name]}
                  error={errors[`config.${field.name}`]}
                  secretKept={record !== undefined && secretStored(field, storedConfig)}
                  onChange={(value) => setConfigValues({ ...currentConfig, [field.name]: value })}
                />
              ))}
            </fieldset>
          )}
          <ErrorNotice error={send.error} />
          <button type="submit" disabled={send.isPending}>
            {submitLabel}
          </button>
        </form>
      )}
      {done && (
        <p role="status" className="notice">
          {done.text}
          {done.approvalId && (
            <>
              {' '}
              <Link to="/approvals?status=pending">See the pending approvals</Link>
            </>
          )}
        </p>
      )}
      {secret && <ShownOnce secret={secret} onDismiss={() => setSecret(undefined)} />}
    </details>
  );
}
