import { loadApiDescription, operationsById } from './api-description';
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
