import { acmeIssuerConnectorFactory } from './acme-issuer/acme-issuer-connector';
import { IssuerConnectorRegistry } from './issuers/issuer-connector-registry';
import { IssuerConnectors } from './issuers/issuer-connectors';
import { IssuerDependencies } from './issuers/issuer-dependencies';
import { localCaConnectorFactory } from './local-ca/local-ca-connector';
import { scriptIssuerConnectorFactory } from './script-issuer/script-issuer-connector';
import { vaultPkiConnectorFactory } from './vault-pki/vault-pki-connector';

/** The kinds this build issues from: the local CA, ACME, Vault PKI and the script adapter; each new kind registers here. */
export function issuerConnectors(): IssuerConnectors {
  return new IssuerConnectorRegistry<IssuerDependencies>()
    .register(localCaConnectorFactory)
    .register(scriptIssuerConnectorFactory)
    .register(vaultPkiConnectorFactory)
    .register(acmeIssuerConnectorFactory);
}
