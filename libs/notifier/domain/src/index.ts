export * from './delivery/delivery-state';
export * from './delivery/retry-backoff';
export * from './events/notification-event';
export * from './routing/routing-rule';
export * from './digest/digest';
export * from './digest/digest-render';
export * from './delivery/delivery-limits';
