import { MonitorClock } from '../health-checks/monitor-clock';

/** The sentinel agents that own cloud discovery (spec 2.4). */
export type CloudSentinel = 'cloud-aws-sm' | 'cloud-azure-sm' | 'cloud-gcp-sm';

/** Certificates found in one cloud object (a secret, an ACM or Key Vault certificate). */
export interface CloudFinding {
  /** The object's stable name: an ARN, a Key Vault certificate id, a Secret Manager resource name. */
  name: string;
  /** PEM certificate blocks only (never a key). */
  certificates: string[];
}

/**
 * One provider's scanner: lists every object it may read and answers the certificates in them. It
 * reads the clock when it signs each request: a run can outlast a signature's validity.
 */
export interface CloudScanner {
  readonly sentinel: CloudSentinel;
  scan(clock: MonitorClock): Promise<CloudFinding[]>;
}

/** At most this many objects are read per provider per run (pages are followed up to it). */
export const CLOUD_OBJECTS_MAX = 10_000;
