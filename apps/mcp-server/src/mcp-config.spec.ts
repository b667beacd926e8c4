import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mcpConfig, rereadApiKey } from './mcp-config';

const base = { SERVICE_SERVER_URL: 'https://gw.example:8443', SERVICE_API_KEY: 'k'.repeat(40) };
const http = {
  SERVICE_SERVER_URL: 'https://gw.example:8443',
  SERVICE_MCP_TRANSPORT: 'http',
  SERVICE_MCP_TLS_CERT_PATH: '/tls/mcp.crt',
  SERVICE_MCP_TLS_KEY_PATH: '/tls/mcp.key',
};

describe('the MCP server configuration', () => {
  it('refuses an http:// Certlane URL for both transports', () => {
    expect(() => mcpConfig({ ...base, SERVICE_SERVER_URL: 'http://gw.example:8443' })).toThrow(/http:\/\//);
    expect(() => mcpConfig({ ...http, SERVICE_SERVER_URL: 'http://gw.example:8443' })).toThrow(/http:\/\//);
  });

  it('runs over stdio by default with the configured key and both tool sets', () => {
    expect(mcpConfig(base)).toEqual({
      serverUrl: 'https://gw.example:8443',
      transport: 'stdio',
      apiKey: base.SERVICE_API_KEY,
      toolSets: ['main', 'est'],
    });
    expect(() => mcpConfig({ SERVICE_SERVER_URL: base.SERVICE_SERVER_URL })).toThrow(/SERVICE_API_KEY/);
  });

  it('over HTTP needs no key of its own but a certificate and key, and bounds its sessions', () => {
    expect(mcpConfig(http)).toMatchObject({
      transport: 'http',
      http: {
        host: '127.0.0.1',
        port: 8444,
        certPath: '/tls/mcp.crt',
        keyPath: '/tls/mcp.key',
        maxSessions: 64,
        idleTimeoutMs: 1_800_000,
        allowedOrigins: [],
      },
    });
    expect(mcpConfig(http).apiKey).toBeUndefined();
    expect(() => mcpConfig({ ...http, SERVICE_MCP_TLS_KEY_PATH: '' })).toThrow(/SERVICE_MCP_TLS_KEY_PATH/);
    expect(() => mcpConfig({ ...http, SERVICE_MCP_MAX_SESSIONS: '0' })).toThrow(/SERVICE_MCP_MAX_SESSIONS/);
    expect(() => mcpConfig({ ...http, SERVICE_MCP_PORT: '70000' })).toThrow(/SERVICE_MCP_PORT/);
    expect(() => mcpConfig({ ...http, SERVICE_MCP_TRANSPORT: 'sse' })).toThrow(/SERVICE_MCP_TRANSPORT/);
  });

  it('reads the browser origins allowed over HTTP, each exactly as an Origin header carries it', () => {
    expect(
      mcpConfig({ ...http, SERVICE_MCP_ALLOWED_ORIGINS: 'https://console.example, http://localhost:6274' })
        .http?.allowedOrigins,
    ).toEqual(['https://console.example', 'http://localhost:6274']);
    for (const wrong of [
      'https://console.example/',
      'https://console.example/mcp',
      'console.example',
      'ftp://x.example',
    ])
      expect(() => mcpConfig({ ...http, SERVICE_MCP_ALLOWED_ORIGINS: wrong })).toThrow(
        /SERVICE_MCP_ALLOWED_ORIGINS/,
      );
  });

  it('reads the key file again (a rotated key), and nothing without one', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-key-'));
    try {
      const file = join(dir, 'key');
      writeFileSync(file, 'first-key\n');
      expect(rereadApiKey({ SERVICE_API_KEY_FILE: file })).toBe('first-key');
      writeFileSync(file, 'rotated-key\n');
      expect(rereadApiKey({ SERVICE_API_KEY_FILE: file })).toBe('rotated-key');
      expect(rereadApiKey({ SERVICE_API_KEY_FILE: join(dir, 'missing') })).toBeUndefined();
      expect(rereadApiKey({ SERVICE_API_KEY: 'k'.repeat(40) })).toBeUndefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
