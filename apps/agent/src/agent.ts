import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import { AGENT_DISCOVERY_FINDINGS_MAX } from '@certlane/contracts';
import type { AgentDiscoveryFinding, AgentVerificationReport, AgentWorkItem } from '@certlane/contracts';
import type { DeploymentHost, DeploymentResult } from '@certlane/connectors';
import { createCsr, generateRecipientKey, SubjectAltNameInput, unwrapPrivateKey } from '@certlane/pki';
import { backoffDelay, JITTER_FRACTION, jittered, retryDelays } from './backoff';
import { DeploymentJournal, InterruptedDeployment, journalEntryOf } from './deployment-journal';
import { scanFilesystem } from './discovery/filesystem-scan';
import { FinalReport, FinalReportSender, UnsentReports } from './final-reports';
import { KeyStore } from './key-store';
import type { Logger } from './logger';
import { ApiError } from '@certlane/api-client';
import { AgentGoneError, AgentServerClient, HostFacts } from './server-client';
import { classifyServerError, serverRetryAfterMs } from './server-errors';
import type { ConnectorResolver, TargetConfigSource } from './targets';
import { verificationOf } from './verification';

/** The names a CSR asks for: the common name as a DNS name, then the SANs typed by form. */
export function subjectAltNamesFor(commonName: string, sans: readonly string[]): SubjectAltNameInput[] {
  const out: SubjectAltNameInput[] = [];
  const seen = new Set<string>();
  const add = (entry: SubjectAltNameInput) => {
    const key = `${entry.type}:${entry.value.toLowerCase()}`;
    if (!seen.has(key)) {
      seen.add(key);
      out.push(entry);
    }
  };
  if (
    /^[A-Za-z0-9*]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)+$/.test(commonName)
  ) {
    add({ type: 'dns', value: commonName });
  }
  for (const value of sans) {
    if (isIP(value)) add({ type: 'ip', value });
    else if (value.includes('://')) add({ type: 'uri', value });
    else if (value.includes('@')) add({ type: 'email', value });
    else add({ type: 'dns', value });
  }
  return out;
}

/** A failed deployment's steps, as one line for the job's `last_error`. */
export function describeFailure(result: DeploymentResult): string {
  const steps = result.steps.map(
    (s) => `${s.step}:${s.ok ? 'ok' : 'failed'}${s.detail && !s.ok ? ` (${s.detail})` : ''}`,
  );
  const head = result.error ?? 'the deployment failed';
  return `${head}${result.rolledBack ? ' [rolled back to the previous certificate]' : ''}${steps.length ? ` steps: ${steps.join(', ')}` : ''}`;
}

export interface AgentDependencies {
  server: AgentServerClient;
  keys: KeyStore;
  /** Final job reports not yet taken by the server, replayed before each poll. */
  unsentReports: UnsentReports;
  /** Deployments started and not settled, run again after the agent was killed in one. */
  journal: DeploymentJournal;
  targets: TargetConfigSource;
  connectors: ConnectorResolver;
  host: DeploymentHost;
  logger: Logger;
  facts: () => HostFacts;
  pollIntervalMs: number;
  heartbeatIntervalMs: number;
  backoffMaxMs: number;
  /** Filesystem discovery (ADR 0063): off when absent. */
  discovery?: AgentDiscoverySettings;
  random?: () => number;
  /** A monotonic clock in ms (default `performance.now`): a step of the wall clock moves no schedule. */
  now?: () => number;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

export interface AgentDiscoverySettings {
  /** Directories walked for certificate files. */
  roots: string[];
  /** Passwords tried on PKCS#12 certificates (never logged or sent). */
  pkcs12Passwords: string[];
  intervalMs: number;
}

export interface DiscoveryOutcome {
  findings: number;
  files_read: number;
  locked_files: number;
  pushes: number;
}

/**
 * What became of a work item: `deferred` when a transient error left it for the next poll,
 * `refused` when the server refused a call for it for good (and it could not be reported Failed).
 */
export type JobOutcome = 'csr-submitted' | 'completed' | 'failed' | 'skipped' | 'deferred' | 'refused';

/** Attempts of a final report within one deployment: the first, then these many after waits. */
const FINAL_REPORT_RETRIES = 3;
const FINAL_REPORT_RETRY_BASE_MS = 1_000;
const FINAL_REPORT_RETRY_CAP_MS = 10_000;

/** Runs of one deployment the agent was killed in before it reports it Failed instead. */
export const MAX_DEPLOYMENT_RUNS = 3;

/** The longest Retry-After the agent honours (a longer one is read as this). */
const RETRY_AFTER_CAP_MS = 3_600_000;

/** What a deployment observed besides its outcome, for the status report. */
interface DeploymentSeen {
  verification?: AgentVerificationReport;
}

const abortableSleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolvePromise) => {
    if (signal.aborted) return resolvePromise();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolvePromise();
    }
    signal.addEventListener('abort', done);
  });

/**
 * The agent (ADR 0030): heartbeats and polls on their own jittered schedules, backs off on errors,
 * handles each work item (a CSR from a key it generates and keeps; a deployment through the target's
 * connector) and stops when the server says it is gone (410, or 401 once its key is revoked).
 */
export class CertlaneAgent {
  private readonly random: () => number;
  private readonly now: () => number;
  private readonly sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  private readonly stopper = new AbortController();
  private readonly finalReports: FinalReportSender;
  /** The error of a deferred item of the last poll that carried the server's Retry-After. */
  private deferredBy: unknown;

  constructor(private readonly deps: AgentDependencies) {
    this.random = deps.random ?? Math.random;
    this.now = deps.now ?? (() => performance.now());
    this.sleep = deps.sleep ?? abortableSleep;
    this.finalReports = new FinalReportSender({
      server: deps.server,
      unsent: deps.unsentReports,
      logger: deps.logger,
      retryDelays: () =>
        retryDelays(
          FINAL_REPORT_RETRIES,
          FINAL_REPORT_RETRY_BASE_MS,
          Math.min(FINAL_REPORT_RETRY_CAP_MS, deps.backoffMaxMs),
          this.random,
        ),
      sleep: (ms) => this.sleep(ms, this.stopper.signal),
      stopped: () => this.stopper.signal.aborted,
    });
  }

  stop(): void {
    this.stopper.abort();
  }

  /** Runs until stopped (resolves `stopped`) or the server says the agent is gone. */
  async run(): Promise<{ reason: 'stopped' } | { reason: 'gone'; status: 401 | 410; message: string }> {
    const { logger } = this.deps;
    let nextHeartbeat = this.now();
    let nextPoll = this.now();
    const discovery = this.deps.discovery;
    let nextDiscovery = discovery ? this.now() : Number.POSITIVE_INFINITY;
    let heartbeatFailures = 0;
    let pollFailures = 0;
    let discoveryFailures = 0;
    const retryBase = (interval: number) => Math.min(interval, 5_000);
    // The server's Retry-After (429, 503) is a floor, spread by the jitter so a fleet told the
    // same wait does not come back in step.
    const backOff = (failures: number, interval: number, error?: unknown) => {
      const delay = backoffDelay(failures, retryBase(interval), this.deps.backoffMaxMs, this.random);
      const asked = error === undefined ? undefined : serverRetryAfterMs(error);
      if (asked === undefined) return delay;
      return Math.max(delay, jitteredUp(Math.min(asked, RETRY_AFTER_CAP_MS), this.random));
    };
    try {
      while (!this.stopper.signal.aborted) {
        if (this.now() >= nextHeartbeat) {
          try {
            await this.deps.server.heartbeat(this.deps.facts());
            heartbeatFailures = 0;
            nextHeartbeat = this.now() + jittered(this.deps.heartbeatIntervalMs, this.random);
          } catch (error) {
            if (error instanceof AgentGoneError) throw error;
            heartbeatFailures++;
            const delay = backOff(heartbeatFailures, this.deps.heartbeatIntervalMs, error);
            logger.warn('heartbeat failed', { error: (error as Error).message, retry_in_ms: delay });
            nextHeartbeat = this.now() + delay;
          }
        }
        if (this.stopper.signal.aborted) break;
        if (this.now() >= nextPoll) {
          try {
            const deferred = (await this.pollOnce()).filter((o) => o === 'deferred').length;
            if (deferred === 0) {
              pollFailures = 0;
              nextPoll = this.now() + jittered(this.deps.pollIntervalMs, this.random);
            } else {
              // The other items were handled; the deferred ones come back sooner or later, and
              // an ailing server (5xx, 429) is not asked again at full pace.
              pollFailures++;
              const delay = backOff(pollFailures, this.deps.pollIntervalMs, this.deferredBy);
              logger.warn('work items left for the next poll', { count: deferred, retry_in_ms: delay });
              nextPoll = this.now() + delay;
            }
          } catch (error) {
            if (error instanceof AgentGoneError) throw error;
            pollFailures++;
            const delay = backOff(pollFailures, this.deps.pollIntervalMs, error);
            logger.warn('work poll failed', { error: (error as Error).message, retry_in_ms: delay });
            nextPoll = this.now() + delay;
          }
        }
        if (this.stopper.signal.aborted) break;
        if (discovery && this.now() >= nextDiscovery) {
          try {
            await this.discoverOnce();
            discoveryFailures = 0;
            nextDiscovery = this.now() + jittered(discovery.intervalMs, this.random);
          } catch (error) {
            if (error instanceof AgentGoneError) throw error;
            discoveryFailures++;
            const delay = backOff(discoveryFailures, discovery.intervalMs, error);
            logger.warn('discovery push failed', { error: (error as Error).message, retry_in_ms: delay });
            nextDiscovery = this.now() + delay;
          }
        }
        const wait = Math.max(0, Math.min(nextHeartbeat, nextPoll, nextDiscovery) - this.now());
        await this.sleep(wait, this.stopper.signal);
      }
      return { reason: 'stopped' };
    } catch (error) {
      if (error instanceof AgentGoneError)
        return { reason: 'gone', status: error.status, message: error.message };
      throw error;
    }
  }

  /**
   * One filesystem discovery (ADR 0063): walks the configured directories and pushes every
   * certificate found, in pushes of at most AGENT_DISCOVERY_FINDINGS_MAX. Only certificates leave
   * the host; PKCS#12 passwords and keys never do. Throws when a push fails (the loop backs off).
   */
  async discoverOnce(): Promise<DiscoveryOutcome> {
    const settings = this.deps.discovery;
    if (!settings) return { findings: 0, files_read: 0, locked_files: 0, pushes: 0 };
    // Every push of this walk carries its id; the last says whether the walk was complete, so
    // the server can mark what this agent no longer has as gone (an empty walk still pushes once).
    // Full pushes go out during the walk, so the agent never holds all of a large host's findings.
    const walkId = randomBytes(12).toString('hex');
    let pushes = 0;
    const push = async (findings: AgentDiscoveryFinding[], complete: boolean) => {
      await this.deps.server.pushDiscovery(findings, { id: walkId, complete });
      pushes++;
    };
    const scan = await scanFilesystem(settings.roots, settings.pkcs12Passwords, {
      batches: { size: AGENT_DISCOVERY_FINDINGS_MAX, send: (findings) => push(findings, false) },
      signal: this.stopper.signal,
    });
    for (const root of scan.unreadableRoots) {
      this.deps.logger.warn('discovery directory cannot be read', { path: root });
    }
    if (scan.unreadableCount > 0) {
      this.deps.logger.warn('discovery could not read some directories or files: the walk is incomplete', {
        count: scan.unreadableCount,
        paths: scan.unreadable,
      });
    }
    for (const path of scan.locked) {
      this.deps.logger.info('PKCS#12 certificates not read: no configured password opens them', { path });
    }
    // What is left, at most one push's worth, goes last, with whether the walk read everything.
    if (!this.stopper.signal.aborted) await push(scan.findings, scan.complete);
    const outcome = {
      findings: scan.found,
      files_read: scan.filesRead,
      locked_files: scan.locked.length,
      pushes,
    };
    this.deps.logger.info('discovery done', { ...outcome });
    return outcome;
  }

  /**
   * One poll: first the final reports an earlier loop could not send, then every work item in
   * order, each on its own: an item's error never keeps the others from being handled. Throws
   * when the poll itself fails (the loop backs off) or the agent is gone.
   */
  async pollOnce(): Promise<JobOutcome[]> {
    this.deferredBy = undefined;
    await this.finalReports.replay();
    await this.resumeInterrupted();
    const work = await this.deps.server.work();
    if (work.count > 0) this.deps.logger.info('work received', { count: work.count });
    const outcomes: JobOutcome[] = [];
    for (const item of work.jobs) {
      if (this.stopper.signal.aborted) break;
      outcomes.push(await this.handleOnItsOwn(item));
    }
    return outcomes;
  }

  /** `handle`, with its error kept to the item: deferred when transient, refused when final. */
  private async handleOnItsOwn(item: AgentWorkItem): Promise<JobOutcome> {
    try {
      return await this.handle(item);
    } catch (error) {
      const kind = classifyServerError(error);
      if (kind === 'gone') throw error;
      const fields = { job_id: item.job_id, type: item.type, error: (error as Error).message };
      if (kind === 'transient') {
        if (serverRetryAfterMs(error) !== undefined) this.deferredBy = error;
        this.deps.logger.warn('work item left for the next poll', fields);
        return 'deferred';
      }
      // e.g. the job was cancelled or failed meanwhile: it is no longer this agent's to report.
      this.deps.logger.error('work item refused by the server', fields);
      return 'refused';
    }
  }

  /** One work item. Transient server errors are thrown (the item comes back on the next poll). */
  async handle(item: AgentWorkItem): Promise<JobOutcome> {
    if (item.status === 'AwaitingCSR' && (item.type === 'Issuance' || item.type === 'Renewal')) {
      return this.submitCsr(item);
    }
    if (item.type === 'Deployment' && item.status === 'Pending') return this.deploy(item);
    this.deps.logger.warn('work item of an unknown kind skipped', {
      job_id: item.job_id,
      type: item.type,
      status: item.status,
    });
    return 'skipped';
  }

  private async submitCsr(item: AgentWorkItem): Promise<JobOutcome> {
    const { keys, server, logger } = this.deps;
    const fields = {
      job_id: item.job_id,
      certificate_id: item.certificate_id,
      key_algorithm: item.key_algorithm,
    };
    let csrPem: string;
    try {
      const { signer, path } = await keys.generateForJob(
        item.certificate_id,
        item.job_id,
        item.key_algorithm,
      );
      logger.info('key generated on the agent', { ...fields, key_path: path });
      csrPem = (
        await createCsr({
          subject: [['CN', item.common_name]],
          signer,
          subjectAltNames: subjectAltNamesFor(item.common_name, item.sans),
        })
      ).pem;
    } catch (error) {
      const message = `the agent could not generate the key or CSR: ${(error as Error).message}`;
      logger.error('key generation failed', { ...fields, error: message });
      await server.reportStatus(item.job_id, 'Failed', message);
      return 'failed';
    }
    try {
      const accepted = await server.submitCsr(item.certificate_id, csrPem);
      keys.promote(item.certificate_id, item.job_id, accepted.version_id);
      logger.info('CSR accepted, certificate issued', {
        ...fields,
        version_id: accepted.version_id,
        serial_number: accepted.serial_number,
        not_after: accepted.not_after,
      });
      return 'csr-submitted';
    } catch (error) {
      if (classifyServerError(error) !== 'refused') throw error;
      // The server will not take this CSR however often it is sent (csr_invalid, a profile's
      // profile_violation, ...): fail the job with its reason, or it blocks the poll forever.
      const message = (error as Error).message;
      keys.discard(item.certificate_id, item.job_id);
      logger.error('CSR refused', { ...fields, error: message });
      await server.reportStatus(item.job_id, 'Failed', message);
      return 'failed';
    }
  }

  private async deploy(item: AgentWorkItem): Promise<JobOutcome> {
    const { server, journal } = this.deps;
    // Journalled before the job is Running: a kill from here on is found and run again.
    journal.begin(journalEntryOf(item));
    try {
      await server.reportStatus(item.job_id, 'Running');
    } catch (error) {
      // Refused: the job is not this agent's to run (cancelled meanwhile); nothing was touched.
      // Transient: the Running may have been committed with its answer lost, and then the job
      // never comes back in a poll: the journal runs it at the next one.
      if (classifyServerError(error) === 'refused') journal.end(item.job_id);
      throw error;
    }
    return this.runDeployment(item);
  }

  /**
   * The deployments the agent was killed in (ADR 0079): each is run again, whole, before the new
   * work: a deployment is idempotent, and running it to its end (or its rollback) is what leaves
   * the target's certificate and key matching. Its Running report is sent again (refused when the
   * job is already Running; a job the server settled meanwhile, e.g. failed by its reaper, is
   * still deployed, since the target may hold half of it, and its report is then refused). After
   * MAX_DEPLOYMENT_RUNS runs that never ended it is reported Failed without another run.
   */
  private async resumeInterrupted(): Promise<void> {
    const { journal, logger, server } = this.deps;
    for (const entry of journal.all()) {
      if (this.stopper.signal.aborted) return;
      const fields = {
        job_id: entry.job_id,
        certificate_id: entry.certificate_id,
        target_id: entry.target_id,
        runs: entry.runs,
      };
      if (entry.runs >= MAX_DEPLOYMENT_RUNS) {
        const error = `the agent was stopped in this deployment ${entry.runs} times; not run again (check the target's files)`;
        logger.error('interrupted deployment given up', { ...fields, error });
        await this.finalReports.send({ job_id: entry.job_id, status: 'Failed', error });
        journal.end(entry.job_id);
        continue;
      }
      logger.warn('deployment interrupted by a stop of the agent: running it again', fields);
      journal.begin({ ...entry, runs: entry.runs + 1 });
      try {
        await server.reportStatus(entry.job_id, 'Running');
      } catch (error) {
        if (classifyServerError(error) !== 'refused') throw error; // gone, or try at the next poll
        logger.info('interrupted deployment: the server did not take its Running report', {
          ...fields,
          error: (error as Error).message,
        });
      }
      await this.runDeployment(workItemOf(entry));
    }
  }

  /** A deployment reported Running: runs it, sends (or keeps) its final report, ends its journal. */
  private async runDeployment(item: AgentWorkItem): Promise<JobOutcome> {
    const { logger } = this.deps;
    const fields = { job_id: item.job_id, certificate_id: item.certificate_id, target_id: item.target_id };
    logger.info('deployment started', fields);
    let error: string | undefined;
    const seen: DeploymentSeen = {};
    try {
      error = await this.deployTo(item, seen);
    } catch (thrown) {
      if (thrown instanceof AgentGoneError) throw thrown;
      error = (thrown as Error).message || 'the deployment failed';
    }
    const { verification } = seen;
    const verified = verification ? { verification: verification.result } : {};
    const report: FinalReport = {
      job_id: item.job_id,
      status: error === undefined ? 'Completed' : 'Failed',
      ...(error !== undefined ? { error } : {}),
      ...(verification ? { verification } : {}),
    };
    if (error === undefined) logger.info('deployment completed', { ...fields, ...verified });
    else logger.error('deployment failed', { ...fields, ...verified, error });
    await this.finalReports.send(report);
    this.deps.journal.end(item.job_id);
    return error === undefined ? 'completed' : 'failed';
  }

  /**
   * The key of a CSR whose 202 was lost: the server issued the version and completed the job, so
   * the job never comes back and its key is still filed under the job. It is the version's key
   * when the version's certificate carries its public key; it is filed under the version.
   */
  private adoptKeyOfLostCsrAnswer(
    certificateId: string,
    certificate: { version_id: string; leaf_pem: string },
  ): string | null {
    const { keys, logger } = this.deps;
    const jobId = keys.adoptJobKey(certificateId, certificate.version_id, certificate.leaf_pem);
    if (jobId === null) return null;
    logger.warn('key of a CSR whose answer was lost filed under the version it was issued as', {
      certificate_id: certificateId,
      version_id: certificate.version_id,
      job_id: jobId,
    });
    return keys.keyFor(certificateId, certificate.version_id, certificate.leaf_pem);
  }

  /**
   * A server-generated key (SERVICE_KEYGEN_MODE=server, ADR 0033): fetched wrapped to a P-256 key
   * made for this fetch alone, opened here, checked against the certificate, and stored 0600 like
   * the agent's own keys. Null when the server holds none (the key was generated on an agent).
   */
  private async fetchServerKey(
    certificateId: string,
    certificate: { version_id: string; leaf_pem: string },
  ): Promise<string | null> {
    const label = { certificateId, versionId: certificate.version_id };
    const recipient = await generateRecipientKey();
    let wrapped: string;
    try {
      wrapped = (
        await this.deps.server.certificateKey(certificateId, certificate.version_id, recipient.publicJwk)
      ).private_key_jwe;
    } catch (error) {
      if (error instanceof ApiError && error.code === 'certificate_key_not_found') return null;
      throw error;
    }
    const pem = await unwrapPrivateKey(wrapped, recipient.privateKey, label, certificate.leaf_pem);
    const path = this.deps.keys.storeFetched(certificateId, certificate.version_id, pem);
    this.deps.logger.info('server-generated key fetched wrapped and stored', {
      certificate_id: certificateId,
      version_id: certificate.version_id,
      key_path: path,
    });
    return this.deps.keys.keyFor(certificateId, certificate.version_id, certificate.leaf_pem);
  }

  /**
   * Undefined when deployed; otherwise the reason, for the job's `last_error`. What the connector
   * verified at the endpoint is left in `seen` for the status report.
   */
  private async deployTo(item: AgentWorkItem, seen: DeploymentSeen): Promise<string | undefined> {
    if (!item.target_id) return 'the deployment names no target';
    const target = await this.deps.targets.get(item.target_id);
    if (!target)
      return `target ${item.target_id} is not configured on this agent (SERVICE_AGENT_TARGETS_FILE)`;
    const connector = this.deps.connectors.connectorFor(target.type);
    if (!connector) return `this agent has no connector for target kind ${target.type}`;
    const certificate = await this.deps.server.certificate(item.certificate_id, item.version_id);
    const privateKeyPem =
      this.deps.keys.keyFor(item.certificate_id, certificate.version_id, certificate.leaf_pem) ??
      this.adoptKeyOfLostCsrAnswer(item.certificate_id, certificate) ??
      (await this.fetchServerKey(item.certificate_id, certificate));
    if (!privateKeyPem) {
      return `neither this agent nor the server holds a private key for ${item.certificate_id} version ${certificate.version_id}`;
    }
    const result = await connector.deploy(
      target.config,
      {
        certificatePem: certificate.leaf_pem,
        chainPem: certificate.chain_pem,
        privateKeyPem,
        fingerprintSha256: certificate.fingerprint_sha256.replace(/:/g, '').toLowerCase(),
      },
      this.deps.host,
      {
        ...(target.endpoint ? { endpoint: target.endpoint } : {}),
        serverName: target.server_name ?? item.common_name,
      },
    );
    seen.verification = verificationOf(result, target.endpoint);
    if (!result.ok) return describeFailure(result);
    const pruned = this.deps.keys.pruneBefore(item.certificate_id, certificate.version_id);
    if (pruned.length > 0) {
      this.deps.logger.info('keys of older versions deleted', {
        certificate_id: item.certificate_id,
        versions: pruned,
      });
    }
    return undefined;
  }
}

/** The work item a journalled deployment was started from (what deploying it reads). */
function workItemOf(entry: InterruptedDeployment): AgentWorkItem {
  return {
    job_id: entry.job_id,
    type: 'Deployment',
    status: 'Running',
    certificate_id: entry.certificate_id,
    common_name: entry.common_name,
    sans: [],
    key_algorithm: 'ECDSA-P256',
    target_id: entry.target_id,
    version_id: entry.version_id,
    attempts: 0,
    max_attempts: 1,
    created_at: new Date(0).toISOString(),
  };
}

/** `ms` lengthened by up to the jitter fraction: never shorter than what the server asked. */
function jitteredUp(ms: number, random: () => number): number {
  return Math.round(ms * (1 + JITTER_FRACTION * random()));
}
