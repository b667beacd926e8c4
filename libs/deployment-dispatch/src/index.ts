export * from './deployment-dispatch.module';
