export * from './in-process-service';
