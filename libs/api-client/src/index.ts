// The typed HTTPS client of the Certlane API (ADR 0047): hand-typed against libs/contracts.
export * from './api-errors';
export * from './https-json-client';
export * from './agent-api-client';
