import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { eventContracts, requestContracts, SERVICE_NAMES } from '../subjects';
import {
  CatalogueInput,
  renderSubjectCatalogue,
  replaceCatalogue,
  shapeNamesFromSources,
} from './subject-catalogue';

const sourceDir = join(__dirname, '..');
const contractSources = readdirSync(sourceDir, { recursive: true })
  .filter((file) => String(file).endsWith('subjects.ts'))
  .sort()
  .map((file) => readFileSync(join(sourceDir, String(file)), 'utf8'));
const architecture = readFileSync(join(__dirname, '../../../../docs/architecture.md'), 'utf8');

const input: CatalogueInput = { requestContracts, eventContracts, services: SERVICE_NAMES, contractSources };

describe('the subject catalogue in docs/architecture.md', () => {
  it('is the one rendered from the contract maps (run node tools/gen-architecture-subjects.mjs)', () => {
    expect(replaceCatalogue(architecture, renderSubjectCatalogue(input))).toBe(architecture);
  });

  it('lists every request and event subject with its type', () => {
    const rendered = renderSubjectCatalogue(input);
    for (const subject of [...Object.keys(requestContracts), ...Object.keys(eventContracts)]) {
      expect(rendered).toContain(`| \`${subject}\` |`);
    }
    expect(rendered).toContain(
      '| `issuance.v1.list-renewal-policies` | request/reply | `ListRenewalPoliciesRequest` | `Page<RenewalPolicyDto>` |',
    );
    expect(rendered).toContain('| `auth.v1.api-key.revoked` | event | - | `ApiKeyRevoked` |');
  });

  it('finds a type for every subject in the contract sources', () => {
    const shapes = shapeNamesFromSources(contractSources);
    const untyped = [...Object.keys(requestContracts), ...Object.keys(eventContracts)].filter(
      (subject) => !shapes.has(subject),
    );
    expect(untyped).toEqual([]);
  });

  it('refuses a subject whose first segment names no service', () => {
    expect(() =>
      renderSubjectCatalogue({ ...input, eventContracts: { 'billing.v1.invoice.sent': {} } }),
    ).toThrow('subjects of no known service: billing.v1.invoice.sent');
  });
});
