export * from './unit-of-work';
