import { loadApiDescription, operationsById } from './api-description';
import { UsageError } from './exit-codes';
import { inputFromFlags, kindOf, operationFlags } from './operation-flags';

describe(kindOf.name, () => {
  it('reads a oneOf or anyOf of strings (a date or a date-time) as text', () => {
    const dateOrTime = [
      { type: 'string', format: 'date' },
      { type: 'string', format: 'date-time' },
    ];
    expect(kindOf({ oneOf: dateOrTime })).toBe('string');
    expect(kindOf({ anyOf: dateOrTime })).toBe('string');
  });

  it('reads a field that takes null by its other type (anyOf or a type list with null, ADR 0049)', () => {
    expect(kindOf({ anyOf: [{ type: 'string' }, { type: 'null' }] })).toBe('string');
    expect(kindOf({ anyOf: [{ type: 'integer' }, { type: 'null' }] })).toBe('number');
    expect(kindOf({ anyOf: [{ type: 'boolean' }, { type: 'null' }] })).toBe('boolean');
    expect(kindOf({ type: ['array', 'null'], items: { type: 'string' } })).toBe('list');
    expect(kindOf({ anyOf: [{ type: 'object' }, { type: 'null' }] })).toBe('json');
  });

  it('keeps JSON for a oneOf with a branch that is not text', () => {
    expect(kindOf({ oneOf: [{ type: 'string' }, { type: 'object' }] })).toBe('json');
  });
});

describe(operationFlags.name, () => {
  it("takes the audit export's --from and --to as given (docs/cli.md: --from 2026-11-01)", () => {
    const document = loadApiDescription();
    const flags = operationFlags(document, operationsById(document).get('exportAudit')!);
    const input = inputFromFlags(flags, { from: '2026-11-01', to: '2026-11-30T00:00:00Z' }, undefined);
    expect(input.query).toEqual({ from: '2026-11-01', to: '2026-11-30T00:00:00Z' });
  });
});

describe('fields that take null', () => {
  const document = loadApiDescription();
  const flags = operationFlags(document, operationsById(document).get('updateHealthCheck')!);

  it('types them by their value and marks them nullable, choices without null', () => {
    expect(flags.find((flag) => flag.key === 'sni')).toMatchObject({ kind: 'string', nullable: true });
    expect(flags.find((flag) => flag.key === 'port')).toMatchObject({ kind: 'number', nullable: true });
    const certificate = operationFlags(document, operationsById(document).get('updateCertificate')!);
    const algorithm = certificate.find((flag) => flag.key === 'key_algorithm')!;
    expect(algorithm.choices).toContain('ECDSA-P256');
    expect(algorithm.choices).not.toContain(null);
  });

  it('sends null for --null FIELD (README: null clears sni and expected_fingerprint)', () => {
    const input = inputFromFlags(flags, { null: ['sni', 'expected-fingerprint'], port: '8443' }, undefined);
    expect(input.body).toEqual({ sni: null, expected_fingerprint: null, port: 8443 });
  });

  it('refuses --null for a field that takes no null, or beside a value for the same field', () => {
    expect(() => inputFromFlags(flags, { null: ['colour'] }, undefined)).toThrow(UsageError);
    expect(() => inputFromFlags(flags, { null: ['sni'], sni: 'a.example' }, undefined)).toThrow(/contradict/);
  });
});
