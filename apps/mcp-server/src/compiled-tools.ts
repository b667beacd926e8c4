import Ajv2020, { ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { CatalogueTool } from './tool-catalogue';
import { ToolSet } from './tool-sets';

export interface CompiledTool {
  tool: CatalogueTool;
  validate: ValidateFunction;
}

/** The listing as MCP sends it. */
export interface ListedTool {
  name: string;
  description: string;
  inputSchema: { type: 'object' } & Record<string, unknown>;
  annotations: { readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean };
}

/**
 * The tools of the chosen sets with their input validators, compiled once per process and shared
 * by every session (compiling the schemas is the costly part of a server).
 */
export class CompiledTools {
  readonly listing: ListedTool[];
  private readonly byName: Map<string, CompiledTool>;

  constructor(catalogue: readonly CatalogueTool[], sets: readonly ToolSet[]) {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    const tools = catalogue.filter((tool) => sets.includes(tool.set));
    this.byName = new Map(
      tools.map((tool) => [tool.name, { tool, validate: ajv.compile(tool.inputSchema) }]),
    );
    this.listing = tools.map((tool) => ({
      name: tool.name,
      description: tool.description,
      inputSchema: tool.inputSchema as ListedTool['inputSchema'],
      annotations: {
        readOnlyHint: tool.readOnly,
        destructiveHint: tool.destructive,
        idempotentHint: tool.idempotent,
      },
    }));
  }

  get(name: string): CompiledTool | undefined {
    return this.byName.get(name);
  }
}
