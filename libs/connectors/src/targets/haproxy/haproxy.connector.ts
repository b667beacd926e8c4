import { checkConfig, COMMAND_FIELDS, ConnectorConfigSchema, requiredString } from '../config-schema';
import { deployFiles, DeploymentEngineOptions } from '../engine/deploy-engine';
import { fullChainPem, privateKeyPem } from '../engine/material';
import { commandsOf, configFailure, withDeployOptions } from '../pem-files';
import type { DeploymentMaterial, TargetConnector } from '../target-connector';

/** ADR 0026: `pem_path` (one PEM: certificate, chain, key) and the three commands. */
export const HAPROXY_CONFIG_SCHEMA: ConnectorConfigSchema = {
  pem_path: { type: 'path', required: true },
  ...COMMAND_FIELDS,
};

/** What `crt` in an HAProxy `bind` line reads: the leaf, its chain, then the private key. */
export function haproxyPem(material: DeploymentMaterial): string {
  return fullChainPem(material) + privateKeyPem(material);
}

export function haproxyConnector(engineOptions: DeploymentEngineOptions = {}): TargetConnector {
  return {
    type: 'haproxy',
    async deploy(config, material, host, options = {}) {
      let pemPath: string;
      try {
        checkConfig(HAPROXY_CONFIG_SCHEMA, config);
        pemPath = requiredString(config, 'pem_path');
      } catch (error) {
        return configFailure(error);
      }
      return deployFiles(
        {
          // The file holds the key: 0600 (HAProxy reads it as root before dropping privileges).
          files: [{ path: pemPath, data: haproxyPem(material), mode: 0o600 }],
          ...commandsOf(config),
          endpoint: options.endpoint,
          serverName: options.serverName,
        },
        material,
        host,
        withDeployOptions(engineOptions, options),
      );
    },
  };
}
