import { parseToolSets, toolSetOf } from './tool-sets';

describe('tool sets', () => {
  it('puts the EST tag, the EST administration routes and the EST bulk revoke in the EST set', () => {
    expect(toolSetOf({ tag: 'est', path: '/api/v1/anything' })).toBe('est');
    expect(toolSetOf({ tag: 'admin', path: '/api/v1/admin/est/profiles' })).toBe('est');
    expect(toolSetOf({ tag: 'admin', path: '/api/v1/admin/est/reload-trust' })).toBe('est');
    expect(toolSetOf({ tag: 'certificates', path: '/api/v1/est/certificates/bulk-revoke' })).toBe('est');
  });

  it('puts everything else in the main set, including look-alike paths', () => {
    expect(toolSetOf({ tag: 'certificates', path: '/api/v1/certificates/bulk-revoke' })).toBe('main');
    expect(toolSetOf({ tag: 'admin', path: '/api/v1/admin/scep/profiles' })).toBe('main');
    expect(toolSetOf({ tag: 'estimates', path: '/api/v1/estimates' })).toBe('main');
  });

  it('reads SERVICE_MCP_TOOL_SETS and refuses unknown or empty lists', () => {
    expect(parseToolSets('main')).toEqual(['main']);
    expect(parseToolSets(' main , est,main ')).toEqual(['main', 'est']);
    expect(() => parseToolSets('main,scep')).toThrow(/SERVICE_MCP_TOOL_SETS/);
    expect(() => parseToolSets(' , ')).toThrow(/SERVICE_MCP_TOOL_SETS/);
  });
});
