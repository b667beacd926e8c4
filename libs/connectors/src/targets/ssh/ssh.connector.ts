import { deployFiles, DeployFile, DeploymentEngineOptions } from '../engine/deploy-engine';
import { materialProblem } from '../engine/material';
import { commandsOf, configFailure, pemFiles, withDeployOptions } from '../pem-files';
import type { DeploymentHost, DeploymentResult, TargetConnector } from '../target-connector';
import { remoteCommandLine } from './remote-command';
import { sftpFileOps } from './sftp-file-ops';
import { SshSession } from './ssh-session';
import { SshSettings, sshSettings } from './ssh-settings';

export interface SshConnectorOptions extends DeploymentEngineOptions {
  /** TCP connect, handshake and authentication (default 15 s). */
  connectTimeoutMs?: number;
}

const failedBeforeWrite = (detail: string): DeploymentResult => ({
  ok: false,
  rolledBack: false,
  steps: [{ step: 'write', ok: false, detail }],
  error: `write failed: ${detail}`,
});

/**
 * Agentless deployment over SSH/SFTP (ADR 0031): connect (host key pinned, key or password
 * auth), then the engine of ADR 0029 with its file operations over SFTP and its commands run
 * remotely; verification connects from here to the target's endpoint. A refused host key, a
 * failed authentication or bad material fail the `write` step before anything is uploaded.
 */
export function sshConnector(connectorOptions: SshConnectorOptions = {}): TargetConnector {
  return {
    type: 'ssh',
    async deploy(config, material, host: DeploymentHost, options = {}) {
      let settings: SshSettings;
      let files: DeployFile[];
      try {
        settings = sshSettings(config);
        files = pemFiles(settings.files, material).files;
      } catch (error) {
        return configFailure(error);
      }
      const problem = materialProblem(material);
      if (problem) return failedBeforeWrite(problem);

      let session: SshSession;
      try {
        session = await SshSession.connect({
          ...settings.connect,
          readyTimeoutMs: connectorOptions.connectTimeoutMs,
        });
      } catch (error) {
        const detail = error instanceof Error ? error.message : String(error);
        host.log('ssh connection failed', { ssh_host: settings.connect.host, error: detail });
        return failedBeforeWrite(detail);
      }
      try {
        const sftp = await session.sftp();
        const remote: DeploymentHost = {
          run: (argv, runOptions) =>
            session.exec(remoteCommandLine(argv.join(' ')), runOptions?.timeoutMs ?? 60_000),
          servedFingerprint: (endpoint, serverName, probeOptions) =>
            host.servedFingerprint(endpoint, serverName, probeOptions),
          log: (message, fields) => host.log(message, { ...fields, ssh_host: settings.connect.host }),
        };
        return await deployFiles(
          {
            files,
            ...commandsOf(settings.files),
            endpoint: options.endpoint,
            serverName: options.serverName,
          },
          material,
          remote,
          { ...withDeployOptions(connectorOptions, options), fileOps: sftpFileOps(sftp) },
        );
      } catch (error) {
        return failedBeforeWrite(`sftp: ${error instanceof Error ? error.message : String(error)}`);
      } finally {
        session.end();
      }
    },
  };
}
