// The typed HTTPS client of the Certlane API (ADR 0047, 0049): its operations and types are
// generated from the API description (docs/openapi.json).
export * from './api-errors';
export * from './https-json-client';
export * from './api-client';
export * from './agent-api-client';
export { OPERATIONS, OperationId } from './generated/operations';
export type { components, operations, paths } from './generated/openapi-types';
