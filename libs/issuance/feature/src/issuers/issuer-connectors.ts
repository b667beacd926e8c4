import { IssuerDependencies, localCaConnectorFactory } from '../local-ca/local-ca-connector';
import { IssuerConnectorRegistry } from './issuer-connector-registry';

/** Nest token of the service's issuer connector registry. */
export const ISSUER_CONNECTORS = Symbol('ISSUER_CONNECTORS');

export type IssuerConnectors = IssuerConnectorRegistry<IssuerDependencies>;

/** The kinds this build issues from: the local CA today; each new kind registers here. */
export function issuerConnectors(): IssuerConnectors {
  return new IssuerConnectorRegistry<IssuerDependencies>().register(localCaConnectorFactory);
}
