export * from './errors/error-codes';
export * from './errors/certlane-error';
export * from './pagination/page';
export * from './messaging/contract';
export * from './renewal-policies/renewal-policy-limits';
export * from './renewal-policies/renewal-policy.dto';
export * from './system/ping.dto';
export * from './subjects';
