export * from './revocation.module';
