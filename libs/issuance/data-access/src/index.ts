export * from './audit-record';
export * from './not-found';
export * from './page-of';
export * from './unit-of-work';
