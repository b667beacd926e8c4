export * from './renewal-policy-id';
export * from './renewal-policy';
export * from './issuers/issuer-config';
export * from './issuers/issuer-id';
