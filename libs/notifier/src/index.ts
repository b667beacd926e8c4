export * from './notifier.module';
