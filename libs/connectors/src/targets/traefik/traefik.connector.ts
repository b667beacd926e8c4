import { basename } from 'node:path';
import {
  CERTIFICATE_FILE_MODE,
  ConnectorConfigSchema,
  optionalString,
  PEM_FILE_FIELDS,
} from '../config-schema';
import type { DeployFile, DeploymentEngineOptions } from '../engine/deploy-engine';
import { PemFilePaths, pemFilesConnector } from '../pem-files';
import type { DeploymentMaterial, TargetConnector } from '../target-connector';

/** ADR 0026: the PEM file keys plus `dynamic_config_path` (a file-provider YAML file). */
export const TRAEFIK_CONFIG_SCHEMA: ConnectorConfigSchema = {
  ...PEM_FILE_FIELDS,
  dynamic_config_path: { type: 'path' },
};

/**
 * Traefik's file-provider dynamic configuration for the certificate (documented under
 * "HTTPS & TLS" -> "User defined": `tls.certificates[].certFile/keyFile`). Strings are written as
 * JSON strings, which are valid YAML double-quoted scalars. The comment names the deployed
 * fingerprint, so the file changes at every deployment and a watching provider reloads.
 */
export function traefikDynamicConfig(paths: PemFilePaths, fingerprintSha256: string): string {
  return [
    `# Written by Certlane: the certificate ${basename(paths.certPath)} (SHA-256 ${fingerprintSha256}).`,
    'tls:',
    '  certificates:',
    `    - certFile: ${JSON.stringify(paths.certPath)}`,
    `      keyFile: ${JSON.stringify(paths.keyPath)}`,
    '',
  ].join('\n');
}

export function traefikConnector(engineOptions: DeploymentEngineOptions = {}): TargetConnector {
  return pemFilesConnector(
    {
      type: 'traefik',
      schema: TRAEFIK_CONFIG_SCHEMA,
      extraFiles: (config, paths, material: DeploymentMaterial): DeployFile[] => {
        const path = optionalString(config, 'dynamic_config_path');
        // Written last: the provider sees it only once the files it names are in place.
        return path
          ? [
              {
                path,
                data: traefikDynamicConfig(paths, material.fingerprintSha256),
                mode: CERTIFICATE_FILE_MODE,
              },
            ]
          : [];
      },
    },
    engineOptions,
  );
}
