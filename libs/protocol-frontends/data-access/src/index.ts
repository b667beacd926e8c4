// ACME storage (issue 19; ADR 0053): schema protocol_frontends, migrations/protocol-frontends.
export * from './sql/rows';
export * from './sql/prepared-executor';
export * from './sql/composite-statement';
export * from './nonces/nonce.store';
export * from './accounts/account.store';
export * from './orders/order.store';
export * from './certificates/certificate.store';
export * from './limits/rate-limit.store';
export * from './est/est-profile.store';
export * from './est/est-key-encryption-key.store';
export * from './scep/scep-profile.store';
export * from './scep/scep-transaction.store';
export * from './scep/scep-challenge-replay.store';
export * from './eab-keys/eab-key.store';
export * from './profiles/acme-profile.store';
export * from './orders/authorization-profile.store';
export * from './operations/acme-operations.store';
