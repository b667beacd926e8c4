export * from './issuance.module';
