// Test fixtures of the inventory tables, for the issuance libraries' tests (not exported by index.ts).
export * from './inventory/testing-fixtures';
