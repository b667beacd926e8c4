/** The tool sets (issue 17): `main` mirrors the API, `est` holds the EST administration tools. */
export const TOOL_SETS = ['main', 'est'] as const;
export type ToolSet = (typeof TOOL_SETS)[number];

/**
 * EST-specific operations (spec 4.3, 4.9): the `est` tag, the EST administration routes
 * (`/api/v1/admin/est/...`) and the EST-only bulk revoke (`/api/v1/est/...`).
 */
export function toolSetOf(operation: { tag: string; path: string }): ToolSet {
  return operation.tag === 'est' || /^\/api\/v1\/(admin\/)?est\//.test(operation.path) ? 'est' : 'main';
}

/** `main,est` -> the sets; an unknown name is refused. */
export function parseToolSets(raw: string): ToolSet[] {
  const names = raw
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  const unknown = names.filter((name) => !(TOOL_SETS as readonly string[]).includes(name));
  if (unknown.length > 0 || names.length === 0)
    throw new Error(`SERVICE_MCP_TOOL_SETS: expected a comma-separated list of ${TOOL_SETS.join(', ')}`);
  return [...new Set(names)] as ToolSet[];
}
