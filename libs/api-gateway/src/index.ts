export * from './api-gateway.module';
