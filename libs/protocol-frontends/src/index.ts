export * from './protocol-frontends.module';
