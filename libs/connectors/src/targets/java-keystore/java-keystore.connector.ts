import {
  checkConfig,
  COMMAND_FIELDS,
  ConnectorConfigSchema,
  keyFileMode,
  optionalString,
  requiredString,
} from '../config-schema';
import { deployFiles, DeploymentEngineOptions } from '../engine/deploy-engine';
import { nodeFileOps, siblingTempPath } from '../engine/file-ops';
import { fullChainPem, privateKeyPem } from '../engine/material';
import { commandsOf, configFailure, withDeployOptions } from '../pem-files';
import type { CommandResult, DeploymentHost, DeploymentResult, TargetConnector } from '../target-connector';

/** ADR 0026: store_path, store_password, alias, store_type (PKCS12 | JKS), the three commands. */
export const JAVA_KEYSTORE_CONFIG_SCHEMA: ConnectorConfigSchema = {
  store_path: { type: 'path', required: true },
  store_password: { type: 'string', required: true },
  alias: { type: 'string', required: true },
  store_type: { type: 'enum', values: ['PKCS12', 'JKS'] },
  file_mode: { type: 'enum', values: ['0600', '0640', '0644'] },
  ...COMMAND_FIELDS,
};

export interface JavaKeystoreOptions extends DeploymentEngineOptions {
  /** The tools, found on PATH by default. */
  openssl?: string;
  keytool?: string;
}

function failed(result: CommandResult): string | null {
  if (result.timedOut) return 'timed out';
  if (result.exitCode === null) return `could not be run (${result.stderr.trim() || 'not installed?'})`;
  if (result.exitCode !== 0) return `exit code ${result.exitCode}: ${result.stderr.trim().slice(-300)}`;
  return null;
}

/**
 * A Java keystore (PKCS#12 or JKS) receiving the key entry `alias`: openssl packs the key and
 * full chain into a PKCS#12 (`openssl pkcs12 -export`), `keytool -importkeystore` imports it
 * into a copy of the current store (other entries kept; the old `alias` entry deleted first),
 * and the engine swaps the new store in atomically with the usual validate / reload / verify /
 * rollback. Passwords go to keytool and openssl through 0600 files (`-storepass:file`,
 * `-passout file:`), never on the command line; every temporary file is removed.
 */
export function javaKeystoreConnector(options: JavaKeystoreOptions = {}): TargetConnector {
  const ops = options.fileOps ?? nodeFileOps;
  const openssl = options.openssl ?? 'openssl';
  const keytool = options.keytool ?? 'keytool';
  return {
    type: 'java_keystore',
    async deploy(config, material, host: DeploymentHost, deployOptions = {}): Promise<DeploymentResult> {
      let storePath: string;
      let password: string;
      let alias: string;
      let storeType: string;
      try {
        checkConfig(JAVA_KEYSTORE_CONFIG_SCHEMA, config);
        storePath = requiredString(config, 'store_path');
        password = requiredString(config, 'store_password');
        alias = requiredString(config, 'alias');
        storeType = optionalString(config, 'store_type') ?? 'PKCS12';
      } catch (error) {
        return configFailure(error);
      }
      const timeoutMs = deployOptions.commandTimeoutMs ?? options.commandTimeoutMs ?? 60_000;
      const sourcePem = siblingTempPath(storePath, 'source');
      const passwordFile = siblingTempPath(storePath, 'password');
      const p12 = siblingTempPath(storePath, 'p12');
      const newStore = siblingTempPath(storePath, 'store');
      let data: Buffer;
      try {
        await ops.create(sourcePem, Buffer.from(fullChainPem(material) + privateKeyPem(material)), 0o600);
        await ops.create(passwordFile, Buffer.from(`${password}\n`), 0o600);
        const packed = await host.run(
          [
            openssl,
            'pkcs12',
            '-export',
            '-in',
            sourcePem,
            '-name',
            alias,
            '-out',
            p12,
            '-passout',
            `file:${passwordFile}`,
          ],
          { timeoutMs },
        );
        const packProblem = failed(packed);
        if (packProblem) throw new Error(`openssl pkcs12 ${packProblem}`);
        const current = await ops.read(storePath);
        if (current) {
          await ops.create(newStore, current.data, 0o600);
          // Absent alias: keytool fails, which is fine; the import below is what must succeed.
          await host.run(
            [
              keytool,
              '-delete',
              '-alias',
              alias,
              '-keystore',
              newStore,
              '-storetype',
              storeType,
              '-storepass:file',
              passwordFile,
            ],
            { timeoutMs },
          );
        }
        const imported = await host.run(
          [
            keytool,
            '-importkeystore',
            '-noprompt',
            '-srckeystore',
            p12,
            '-srcstoretype',
            'PKCS12',
            '-srcstorepass:file',
            passwordFile,
            '-srcalias',
            alias,
            '-destkeystore',
            newStore,
            '-deststoretype',
            storeType,
            '-deststorepass:file',
            passwordFile,
            '-destalias',
            alias,
          ],
          { timeoutMs },
        );
        const importProblem = failed(imported);
        if (importProblem) throw new Error(`keytool -importkeystore ${importProblem}`);
        const built = await ops.read(newStore);
        if (!built) throw new Error('keytool wrote no keystore');
        data = built.data;
      } catch (error) {
        const detail = error instanceof Error ? error.message : String(error);
        return {
          ok: false,
          rolledBack: false,
          steps: [{ step: 'write', ok: false, detail }],
          error: `write failed: ${detail}`,
        };
      } finally {
        for (const path of [sourcePem, passwordFile, p12, newStore])
          await ops.remove(path).catch(() => undefined);
      }
      return deployFiles(
        {
          files: [{ path: storePath, data, mode: keyFileMode(config) }],
          ...commandsOf(config),
          endpoint: deployOptions.endpoint,
          serverName: deployOptions.serverName,
        },
        material,
        host,
        withDeployOptions(options, deployOptions),
      );
    },
  };
}
