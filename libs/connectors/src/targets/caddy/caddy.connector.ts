import { ConnectorConfigSchema, PEM_FILE_FIELDS } from '../config-schema';
import type { DeploymentEngineOptions } from '../engine/deploy-engine';
import { pemFilesConnector } from '../pem-files';
import type { TargetConnector } from '../target-connector';

/** ADR 0026: cert_path, key_path, chain_path, file_mode, reload/validate/restart_command. */
export const CADDY_CONFIG_SCHEMA: ConnectorConfigSchema = PEM_FILE_FIELDS;

export function caddyConnector(engineOptions: DeploymentEngineOptions = {}): TargetConnector {
  return pemFilesConnector({ type: 'caddy', schema: CADDY_CONFIG_SCHEMA }, engineOptions);
}
