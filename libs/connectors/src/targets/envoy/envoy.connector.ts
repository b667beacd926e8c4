import { basename, extname } from 'node:path';
import {
  CERTIFICATE_FILE_MODE,
  ConnectorConfigSchema,
  optionalString,
  PEM_FILE_FIELDS,
} from '../config-schema';
import type { DeployFile, DeploymentEngineOptions } from '../engine/deploy-engine';
import { PemFilePaths, pemFilesConnector } from '../pem-files';
import type { DeploymentMaterial, TargetConnector } from '../target-connector';

/** ADR 0026: the PEM file keys plus `sds_path` (a path-based SDS secret resource file). */
export const ENVOY_CONFIG_SCHEMA: ConnectorConfigSchema = {
  ...PEM_FILE_FIELDS,
  sds_path: { type: 'path' },
};

export const ENVOY_SECRET_TYPE = 'type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.Secret';

/** The SDS secret's name: the SDS file's base name without extension (`/etc/envoy/sds/web.yaml` -> `web`). */
export function envoySecretName(sdsPath: string): string {
  return basename(sdsPath, extname(sdsPath));
}

/**
 * A path-based SDS resource (Envoy docs, "Secret discovery service (SDS)" -> "Key rotation"):
 * a `resources` list with one `envoy.extensions.transport_sockets.tls.v3.Secret` whose
 * `tls_certificate` names the certificate chain and private key files. Envoy watches the SDS
 * file for a move into place, which is what the engine's rename is; the comment carries the
 * fingerprint so the content changes at every deployment.
 */
export function envoySdsSecret(sdsPath: string, paths: PemFilePaths, fingerprintSha256: string): string {
  return [
    `# Written by Certlane: SDS secret for the certificate with SHA-256 ${fingerprintSha256}.`,
    'resources:',
    `  - "@type": ${JSON.stringify(ENVOY_SECRET_TYPE)}`,
    `    name: ${JSON.stringify(envoySecretName(sdsPath))}`,
    '    tls_certificate:',
    '      certificate_chain:',
    `        filename: ${JSON.stringify(paths.certPath)}`,
    '      private_key:',
    `        filename: ${JSON.stringify(paths.keyPath)}`,
    '',
  ].join('\n');
}

export function envoyConnector(engineOptions: DeploymentEngineOptions = {}): TargetConnector {
  return pemFilesConnector(
    {
      type: 'envoy',
      schema: ENVOY_CONFIG_SCHEMA,
      extraFiles: (config, paths, material: DeploymentMaterial): DeployFile[] => {
        const path = optionalString(config, 'sds_path');
        return path
          ? [
              {
                path,
                data: envoySdsSecret(path, paths, material.fingerprintSha256),
                mode: CERTIFICATE_FILE_MODE,
              },
            ]
          : [];
      },
    },
    engineOptions,
  );
}
