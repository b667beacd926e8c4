/** Injection tokens of what the platform provides to every service module. */
export const CERTLANE_CONFIG = Symbol('CERTLANE_CONFIG');
export const MESSAGE_BUS = Symbol('MESSAGE_BUS');
export const LOGGER = Symbol('LOGGER');
export const METRICS = Symbol('METRICS');
export const READINESS = Symbol('READINESS');
export const BUILD_INFO = Symbol('BUILD_INFO');

/** The outbox of one service's schema (see ServiceOutbox). */
export const outboxToken = (service: string): string => `CERTLANE_OUTBOX:${service}`;
