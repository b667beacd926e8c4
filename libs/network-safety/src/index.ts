// Address classification for outbound calls (ADR 0057, 0062): one table of special-purpose
// ranges, each caller choosing which classes it refuses.
export * from './ip-address';
export * from './address-classes';
