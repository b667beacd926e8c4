import type { TargetType } from '@certlane/contracts';
import {
  CERTIFICATE_FILE_MODE,
  checkConfig,
  ConnectorConfigSchema,
  keyFileMode,
  optionalString,
  requiredString,
  TargetConfigError,
} from './config-schema';
import { DeployFile, deployFiles, DeploymentEngineOptions } from './engine/deploy-engine';
import { chainPem, fullChainPem, leafPem, privateKeyPem } from './engine/material';
import type {
  DeploymentHost,
  DeploymentMaterial,
  DeploymentResult,
  TargetConnector,
} from './target-connector';

export interface PemFilePaths {
  certPath: string;
  keyPath: string;
  chainPath?: string;
}

export interface PemFilesConnectorSpec {
  type: TargetType;
  schema: ConnectorConfigSchema;
  /** How verification connects (mail servers: STARTTLS). */
  starttls?: 'smtp' | 'imap';
  /** Further files written in the same atomic deployment (Traefik dynamic config, Envoy SDS). */
  extraFiles?: (
    config: Readonly<Record<string, unknown>>,
    paths: PemFilePaths,
    material: DeploymentMaterial,
  ) => DeployFile[];
}

/**
 * The certificate, key and chain files of a PEM-based server. Without `chain_path` the
 * certificate file holds the full chain (leaf first), which nginx, Apache >= 2.4.8, Caddy,
 * Postfix, Dovecot, Traefik and Envoy all read; with it, the leaf and the chain go to separate files.
 */
export function pemFiles(
  config: Readonly<Record<string, unknown>>,
  material: DeploymentMaterial,
): { files: DeployFile[]; paths: PemFilePaths } {
  const paths: PemFilePaths = {
    certPath: requiredString(config, 'cert_path'),
    keyPath: requiredString(config, 'key_path'),
    chainPath: optionalString(config, 'chain_path'),
  };
  const distinct = new Set([paths.certPath, paths.keyPath, paths.chainPath].filter(Boolean));
  if (distinct.size !== (paths.chainPath ? 3 : 2))
    throw new TargetConfigError(['cert_path', 'key_path', 'chain_path']);
  const files: DeployFile[] = [
    {
      path: paths.certPath,
      data: paths.chainPath ? leafPem(material) : fullChainPem(material),
      mode: CERTIFICATE_FILE_MODE,
    },
  ];
  if (paths.chainPath)
    files.push({ path: paths.chainPath, data: chainPem(material), mode: CERTIFICATE_FILE_MODE });
  files.push({ path: paths.keyPath, data: privateKeyPem(material), mode: keyFileMode(config) });
  return { files, paths };
}

export function configFailure(error: unknown): DeploymentResult {
  const detail =
    error instanceof TargetConfigError ? error.message : `invalid target config: ${String(error)}`;
  return { ok: false, rolledBack: false, steps: [{ step: 'write', ok: false, detail }], error: detail };
}

export function commandsOf(config: Readonly<Record<string, unknown>>) {
  return {
    validateCommand: optionalString(config, 'validate_command'),
    reloadCommand: optionalString(config, 'reload_command'),
    restartCommand: optionalString(config, 'restart_command'),
  };
}

/** The engine options with the per-deployment overrides of the contract. */
export function withDeployOptions(
  engineOptions: DeploymentEngineOptions,
  options: { commandTimeoutMs?: number; verifyDeadlineMs?: number },
): DeploymentEngineOptions {
  return {
    ...engineOptions,
    commandTimeoutMs: options.commandTimeoutMs ?? engineOptions.commandTimeoutMs,
    verifyDeadlineMs: options.verifyDeadlineMs ?? engineOptions.verifyDeadlineMs,
  };
}

/** A connector for a kind that is a set of PEM files plus commands. */
export function pemFilesConnector(
  spec: PemFilesConnectorSpec,
  engineOptions: DeploymentEngineOptions = {},
): TargetConnector {
  return {
    type: spec.type,
    async deploy(config, material, host: DeploymentHost, options = {}) {
      let files: DeployFile[];
      try {
        checkConfig(spec.schema, config);
        const pem = pemFiles(config, material);
        files = [...pem.files, ...(spec.extraFiles?.(config, pem.paths, material) ?? [])];
      } catch (error) {
        return configFailure(error);
      }
      return deployFiles(
        {
          files,
          ...commandsOf(config),
          endpoint: options.endpoint,
          serverName: options.serverName,
          starttls: spec.starttls,
        },
        material,
        host,
        withDeployOptions(engineOptions, options),
      );
    },
  };
}
