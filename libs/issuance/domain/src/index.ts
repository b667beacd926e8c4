export * from './renewal-policy-id';
export * from './renewal-policy';
