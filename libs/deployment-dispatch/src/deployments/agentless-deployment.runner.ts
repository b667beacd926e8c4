import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import {
  AGENTLESS_DEPLOYMENT_KEY_LABEL,
  AgentlessDeploymentClaimed,
  CertlaneError,
  ErrorCode,
  FinishAgentlessDeploymentRequest,
  JobCreated,
  RequestContext,
  SYSTEM_ACTOR,
} from '@certlane/contracts';
import { DeploymentResult, NodeDeploymentHost, sshConnector, TargetConnector } from '@certlane/connectors';
import { runsAgentless, stepsSummary, verificationRecord } from '@certlane/deployment-dispatch-domain';
import {
  CERTLANE_CONFIG,
  CertlaneConfig,
  CertlaneLogger,
  LOGGER,
  MESSAGE_BUS,
  MessageBus,
  SecretBox,
} from '@certlane/platform';
import { TargetSecrets } from '../targets/target-secrets';
import { TargetRepository, TargetRow } from '../targets/target.repository';

/** How often and how long a finished deployment's report is retried while issuance is away. */
const REPORT_ATTEMPTS = 6;
const REPORT_FIRST_DELAY_MS = 500;

const context = (jobId: string, step: string): RequestContext => ({
  actor_id: SYSTEM_ACTOR,
  request_id: `agentless-deploy:${jobId}:${step}`.slice(0, 128),
});

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * Agentless deployments (ADR 0031): for a new Deployment job whose target is `ssh` without an
 * agent, claim the job in issuance (the claim, Pending -> Running under the job's row lock, is
 * the lock: a second replica gets "not Pending"), open the sealed key, deploy with the SSH
 * connector, and report Completed/Failed with the verification. The deployment runs after the
 * event is acknowledged (a deployment may outlast the consumer's ack wait); deployments to one
 * target run one after the other within a replica.
 */
@Injectable()
export class AgentlessDeploymentRunner implements OnApplicationShutdown {
  private readonly box: SecretBox;
  private readonly connector: TargetConnector;
  private readonly host: NodeDeploymentHost;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly perTarget = new Map<string, Promise<void>>();

  constructor(
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(LOGGER) private readonly logger: CertlaneLogger,
    @Inject(CERTLANE_CONFIG) config: CertlaneConfig,
    private readonly targets: TargetRepository,
    private readonly secrets: TargetSecrets,
  ) {
    this.box = new SecretBox(config.configEncryptionKey, AGENTLESS_DEPLOYMENT_KEY_LABEL);
    this.connector = sshConnector();
    // The engine logs step outcomes and errors only, never material or credentials.
    this.host = new NodeDeploymentHost({
      log: (message, fields) => this.logger.info({ ...fields }, `agentless deployment: ${message}`),
    });
  }

  /** The consumer's handler: decides, claims, and starts the deployment. Throws to be retried. */
  async onJobCreated(event: JobCreated): Promise<void> {
    if (event.type !== 'Deployment' || !event.target_id) return;
    const target = await this.targets.find(event.target_id);
    const facts = target && {
      kind: target.kind,
      agent_id: target.agent_id,
      retired: target.retired_at !== null,
    };
    if (!target || !runsAgentless(event, facts)) return;
    let claim;
    try {
      claim = await this.bus.request(
        'issuance.v1.start-agentless-deployment',
        { job_id: event.job_id },
        { context: context(event.job_id, 'start') },
      );
    } catch (error) {
      if (error instanceof CertlaneError && error.code === ErrorCode.JobNotFound) return;
      throw error;
    }
    if (!claim.started) {
      this.logger.info(
        { job_id: event.job_id, status: claim.status, reason: claim.reason },
        'agentless deployment not started',
      );
      return;
    }
    const previous = this.perTarget.get(target.id) ?? Promise.resolve();
    const run = previous.then(() => this.deploy(claim, target));
    this.perTarget.set(target.id, run);
    this.inFlight.add(run);
    void run.finally(() => {
      this.inFlight.delete(run);
      if (this.perTarget.get(target.id) === run) this.perTarget.delete(target.id);
    });
  }

  /** Deployments started by this replica that have not reported yet (tests, shutdown). */
  async idle(): Promise<void> {
    await Promise.allSettled([...this.inFlight]);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.idle();
  }

  private async deploy(claim: AgentlessDeploymentClaimed, target: TargetRow): Promise<void> {
    let result: DeploymentResult;
    try {
      const config = this.secrets.open(target.id, target.config_sealed);
      const privateKeyPem = this.box.open(claim.private_key_sealed, claim.job_id);
      result = await this.connector.deploy(
        config,
        {
          certificatePem: claim.leaf_pem,
          chainPem: claim.chain_pem,
          privateKeyPem,
          fingerprintSha256: claim.fingerprint_sha256,
        },
        this.host,
        {
          endpoint: target.endpoint ?? undefined,
          // SNI: the certificate's name, unless it is a wildcard (then the endpoint's host).
          serverName: claim.common_name.startsWith('*.') ? undefined : claim.common_name || undefined,
        },
      );
    } catch (error) {
      // Never the config or the key: SecretBox errors and JSON errors carry neither.
      result = { ok: false, rolledBack: false, steps: [], error: errorText(error) };
    }
    const verification = verificationRecord(target.endpoint, claim.fingerprint_sha256, result);
    const report: FinishAgentlessDeploymentRequest = {
      job_id: claim.job_id,
      status: result.ok ? 'Completed' : 'Failed',
      ...(result.ok
        ? {}
        : {
            error: `${result.error ?? 'deployment failed'}${result.rolledBack ? ' (rolled back)' : ''}`.slice(
              0,
              4000,
            ),
          }),
      steps: stepsSummary(result.steps),
      ...(verification ? { verification } : {}),
    };
    this.logger.info(
      { job_id: claim.job_id, target_id: target.id, ok: result.ok, rolled_back: result.rolledBack },
      'agentless deployment finished',
    );
    await this.report(report);
  }

  /** Issuance may be restarting: retry with backoff; a job left Running is logged loudly. */
  private async report(report: FinishAgentlessDeploymentRequest): Promise<void> {
    let delay = REPORT_FIRST_DELAY_MS;
    for (let attempt = 1; ; attempt += 1) {
      try {
        await this.bus.request('issuance.v1.finish-agentless-deployment', report, {
          context: context(report.job_id, 'finish'),
        });
        return;
      } catch (error) {
        if (attempt >= REPORT_ATTEMPTS) {
          this.logger.error(
            { job_id: report.job_id, err: error, status: report.status },
            'agentless deployment outcome could not be reported; the job stays Running',
          );
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, delay));
        delay *= 2;
      }
    }
  }
}
