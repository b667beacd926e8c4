export * from './test-database';
export * from './test-nats';
export * from './tls-fixture';
export * from './test-env';
export * from './https-client';
export * from './service-process';
export * from './eventually';
export * from './test-system';
