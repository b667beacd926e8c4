import { IssuerConnectorRegistry } from './issuers/issuer-connector-registry';
import { IssuerConnectors } from './issuers/issuer-connectors';
import { IssuerDependencies } from './issuers/issuer-dependencies';
import { localCaConnectorFactory } from './local-ca/local-ca-connector';

/** The kinds this build issues from: the local CA today; each new kind registers here. */
export function issuerConnectors(): IssuerConnectors {
  return new IssuerConnectorRegistry<IssuerDependencies>().register(localCaConnectorFactory);
}
