export * from './jobs.providers';
