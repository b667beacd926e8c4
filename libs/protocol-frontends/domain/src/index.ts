// The ACME domain (issue 19; ADR 0053): pure rules, no I/O.
export * from './problems/acme-problem';
export * from './accounts/account';
export * from './orders/order-status';
export * from './orders/requested-validity';
export * from './authorizations/authorization-status';
export * from './challenges/challenge-status';
export * from './challenges/key-authorization';
export * from './identifiers/identifiers';
export * from './expiry/expiry';
export * from './jws/acme-jws';
export * from './jws/acme-request';
export * from './jws/key-change';
export * from './jws/external-account-binding';
export * from './challenges/http01-redirect';
export * from './limits/rate-limit';
export * from './renewal-info/renewal-info';
export * from './challenges/validation-retry';
export * from './challenges/poll-retry-after';
export * from './challenges/tls-alpn-01';
export * from './challenges/dns-persist-01';
export * from './profiles/acme-profile';
export * from './caa/caa';
// EST (issue 20; ADR 0058).
export * from './est/est-profile-rules';
export * from './est/est-password';
export * from './est/trust-bundle';
export * from './est/est-wire';
export * from './est/csr-policy';
export * from './est/est-binding-rules';
export * from './est/est-key-encryption';
export * from './est/est-approval';
// SCEP (issue 21; ADR 0059).
export * from './scep/scep-challenge-password';
export * from './scep/scep-profile-rules';
export * from './scep/certificate-bundle';
export * from './scep/scep-message';
export * from './scep/mdm-challenge';
