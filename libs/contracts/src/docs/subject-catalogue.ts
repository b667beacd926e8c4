/**
 * The subject catalogue of docs/architecture.md, rendered from the contract maps, so the page
 * cannot drift from the code: `node tools/gen-architecture-subjects.mjs` writes it and
 * subject-catalogue.spec.ts fails when the page holds another one. Pure: callers pass the maps
 * and the source texts (response and payload types exist only at compile time, so their names are
 * read from the `shape<...>()` markers of the contract files).
 */

export const CATALOGUE_BEGIN = '<!-- BEGIN GENERATED subjects: node tools/gen-architecture-subjects.mjs -->';
export const CATALOGUE_END = '<!-- END GENERATED subjects -->';

interface RequestEntry {
  request: { name: string };
}

export interface CatalogueInput {
  requestContracts: Record<string, RequestEntry>;
  eventContracts: Record<string, unknown>;
  /** Services in display order; a subject's first segment names its service. */
  services: readonly string[];
  /** The text of every contract file that declares subjects. */
  contractSources: readonly string[];
}

const SHAPE_ENTRY =
  /'([a-z-]+\.v1\.[a-z0-9.-]+)':\s*\{\s*(?:request:\s*\w+,\s*response|payload):\s*shape<([\s\S]+?)>\(\)/g;

/** Subject -> the type named in its `shape<...>()` (response of a request, payload of an event). */
export function shapeNamesFromSources(sources: readonly string[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const source of sources) {
    for (const match of source.matchAll(SHAPE_ENTRY)) names.set(match[1], match[2].replace(/\s+/g, ' '));
  }
  return names;
}

export function renderSubjectCatalogue(input: CatalogueInput): string {
  const shapes = shapeNamesFromSources(input.contractSources);
  const requests = Object.keys(input.requestContracts);
  const events = Object.keys(input.eventContracts);
  const owner = (subject: string) => subject.slice(0, subject.indexOf('.'));
  const typeOf = (subject: string) => (shapes.has(subject) ? `\`${shapes.get(subject)}\`` : '-');
  const lines = [
    CATALOGUE_BEGIN,
    '',
    `${requests.length} request/reply subjects and ${events.length} event subjects, generated from ` +
      '`requestContracts` and `eventContracts` in `libs/contracts`. The first segment names the ' +
      'service that answers the request or publishes the event.',
  ];
  for (const service of input.services) {
    const own = (subjects: string[]) => subjects.filter((subject) => owner(subject) === service).sort();
    const ownRequests = own(requests);
    const ownEvents = own(events);
    if (!ownRequests.length && !ownEvents.length) continue;
    lines.push('', `#### ${service}: ${count(ownRequests, 'request')}, ${count(ownEvents, 'event')}`, '');
    lines.push('| subject | kind | request DTO | response or payload type |', '| --- | --- | --- | --- |');
    for (const subject of ownRequests) {
      const request = input.requestContracts[subject].request.name;
      lines.push(`| \`${subject}\` | request/reply | \`${request}\` | ${typeOf(subject)} |`);
    }
    for (const subject of ownEvents) lines.push(`| \`${subject}\` | event | - | ${typeOf(subject)} |`);
  }
  const unowned = [...requests, ...events].filter((subject) => !input.services.includes(owner(subject)));
  if (unowned.length) throw new Error(`subjects of no known service: ${unowned.join(', ')}`);
  lines.push('', CATALOGUE_END);
  return lines.join('\n');
}

const count = (items: unknown[], noun: string) => `${items.length} ${noun}${items.length === 1 ? '' : 's'}`;

/** `document` with the block between the markers replaced by `catalogue`. */
export function replaceCatalogue(document: string, catalogue: string): string {
  const begin = document.indexOf(CATALOGUE_BEGIN);
  const end = document.indexOf(CATALOGUE_END);
  if (begin < 0 || end < begin) throw new Error('docs/architecture.md has no generated subjects block');
  return document.slice(0, begin) + catalogue + document.slice(end + CATALOGUE_END.length);
}
