import { IssuerConnectorRegistry } from './issuer-connector-registry';
import { IssuerDependencies } from './issuer-dependencies';

/** Nest token of the service's issuer connector registry (its kinds: issuerConnectors()). */
export const ISSUER_CONNECTORS = Symbol('ISSUER_CONNECTORS');

export type IssuerConnectors = IssuerConnectorRegistry<IssuerDependencies>;
