export * from './ca.providers';
export * from './local-ca/ca-factory';
export * from './local-ca/ca.repository';
export * from './local-ca/ca-expiry-warnings';
export * from './local-ca/local-ca.service';
export * from './local-ca/pki-errors';
export * from './local-ca/read-coalescer';
export * from './revocations/issuer-revocation';
