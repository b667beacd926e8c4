import { AgentReportStatus, JobStatus, JobType, KeyAlgorithmName } from '@certlane/contracts';

/**
 * Rules of the agent work protocol (ADR 0027), pure: does a CSR an agent submitted fit the
 * certificate it is for, and may an agent report a status on a job.
 */

/** The rule a refused CSR broke; it is `details.rule` of the 400 csr_invalid answer. */
export type CsrRule =
  | 'csr_key_algorithm_mismatch'
  | 'csr_key_too_small'
  | 'csr_subject_cn_mismatch'
  | 'csr_subject_not_allowed'
  | 'csr_san_not_allowed'
  | 'csr_ca_requested';

/** What the rules read from a parsed (and signature-checked) CSR. */
export interface CsrFacts {
  subject: { commonName?: string; attributes: readonly { shortName?: string; oid: string }[] };
  subjectAltNames: readonly { type: string; value: string }[];
  publicKey: { algorithm: string; size?: number; curve?: string; description: string };
  /** basicConstraints cA=true was requested. */
  requestsCa: boolean;
}

/** What the certificate allows. `names` are its SANs typed (the common name first when a host name). */
export interface CertificateFacts {
  common_name: string;
  key_algorithm: KeyAlgorithmName;
  names: readonly { type: string; value: string }[];
}

export type CsrCheck = { ok: true } | { ok: false; rule: CsrRule; message: string };

const COMMON_NAME_OID = '2.5.4.3';

/** The family and strength a certificate's key_algorithm asks for. */
function wanted(algorithm: KeyAlgorithmName): { family: string; strength: number } {
  switch (algorithm) {
    case 'ECDSA-P256':
      return { family: 'ECDSA', strength: 256 };
    case 'ECDSA-P384':
      return { family: 'ECDSA', strength: 384 };
    case 'RSA-2048':
      return { family: 'RSA', strength: 2048 };
    case 'RSA-3072':
      return { family: 'RSA', strength: 3072 };
    case 'RSA-4096':
      return { family: 'RSA', strength: 4096 };
    case 'Ed25519':
      return { family: 'Ed25519', strength: 256 };
  }
}

/** Names compare as relying parties compare them: DNS names and e-mail domains without case, IPs canonical. */
export function canonicalName(type: string, value: string): string {
  const v = value.trim();
  switch (type) {
    case 'dns':
      return `dns:${v.toLowerCase().replace(/\.$/, '')}`;
    case 'email':
      return `email:${v.toLowerCase()}`;
    case 'ip':
      return `ip:${canonicalIp(v)}`;
    default:
      return `${type}:${v}`;
  }
}

function canonicalIp(value: string): string {
  if (!value.includes(':')) return value;
  try {
    return new URL(`http://[${value}]/`).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return value.toLowerCase();
  }
}

/**
 * Checks a CSR against the certificate it is for, in this order: the key's family is the
 * certificate's `key_algorithm` family and at least as strong; the subject is exactly
 * `CN=<common_name>` (compared without case); every requested SAN is one of the certificate's
 * names (a CSR may ask for fewer: the issued certificate carries the certificate's names); no CA
 * certificate is requested. The signature and the library's key rules (RSA below 2048 bits,
 * unsupported curves) are checked by the parser before this.
 */
export function checkCsrAgainstCertificate(csr: CsrFacts, certificate: CertificateFacts): CsrCheck {
  const refuse = (rule: CsrRule, message: string): CsrCheck => ({ ok: false, rule, message });
  const want = wanted(certificate.key_algorithm);
  const key = csr.publicKey;
  if (key.algorithm !== want.family) {
    return refuse(
      'csr_key_algorithm_mismatch',
      `the CSR's key is ${key.description}, but certificate ${JSON.stringify(certificate.common_name)} ` +
        `uses ${certificate.key_algorithm} (an ${want.family} key is required)`,
    );
  }
  if ((key.size ?? 0) < want.strength) {
    return refuse(
      'csr_key_too_small',
      `the CSR's key is ${key.description}, weaker than the certificate's ${certificate.key_algorithm}`,
    );
  }
  const cn = csr.subject.commonName;
  if (cn === undefined || cn.toLowerCase() !== certificate.common_name.toLowerCase()) {
    return refuse(
      'csr_subject_cn_mismatch',
      `the CSR's subject CN ${cn === undefined ? '(none)' : JSON.stringify(cn)} does not match the ` +
        `certificate's common name ${JSON.stringify(certificate.common_name)}`,
    );
  }
  const extra = csr.subject.attributes.find((a) => a.oid !== COMMON_NAME_OID);
  if (extra || csr.subject.attributes.length !== 1) {
    return refuse(
      'csr_subject_not_allowed',
      `the CSR's subject must be exactly CN=${certificate.common_name}` +
        (extra ? `; ${extra.shortName ?? extra.oid} is not allowed` : '; it holds several CNs'),
    );
  }
  const allowed = new Set(certificate.names.map((n) => canonicalName(n.type, n.value)));
  allowed.add(canonicalName('dns', certificate.common_name));
  const foreign = csr.subjectAltNames.find((n) => !allowed.has(canonicalName(n.type, n.value)));
  if (foreign) {
    return refuse(
      'csr_san_not_allowed',
      `the CSR requests the subject alternative name ${foreign.type}:${foreign.value}, which the ` +
        `certificate does not list (allowed: ${[...allowed].join(', ')})`,
    );
  }
  if (csr.requestsCa) {
    return refuse('csr_ca_requested', 'the CSR requests a CA certificate (basicConstraints cA=true)');
  }
  return { ok: true };
}

/**
 * What an agent may report (on top of the job machine's `report` event): an Issuance or Renewal
 * job advances through its CSR, so the agent may only give it up (`Failed`, e.g. key generation
 * failed) while it awaits the CSR; Deployment (and Validation) jobs take every report the job
 * machine allows. Returns why a report is refused, or null.
 */
export function agentReportRefusal(type: JobType, from: JobStatus, to: AgentReportStatus): string | null {
  if (type !== 'Issuance' && type !== 'Renewal') return null;
  if (to !== 'Failed') {
    return `a ${type} job advances when its CSR is issued (POST /agents/{id}/csr); an agent reports only Failed on it`;
  }
  if (from !== 'AwaitingCSR') {
    return `a ${type} job in status ${from} is not the agent's to fail (only while it awaits the CSR)`;
  }
  return null;
}

/** The `claimed_by` of a job an agent started (reported Running from Pending). */
export function agentClaimant(agentId: string): string {
  return `agent:${agentId}`;
}

/**
 * Whether a job's claim keeps this agent from reporting on it, and why (to follow "job <id>"). A
 * job two agents can see (its own agent_id and its certificate's) is run by the one that started
 * it while it runs; one a service claimed (an agentless deployment) is never an agent's. Null
 * when the report may go on.
 */
export function agentClaimRefusal(claimedBy: string, status: JobStatus, agentId: string): string | null {
  if (claimedBy === '' || claimedBy === agentClaimant(agentId)) return null;
  if (claimedBy.startsWith('agent:')) {
    return status === 'Running' ? `is being run by ${claimedBy.slice('agent:'.length)}` : null;
  }
  return `is run by ${claimedBy} (agentless target); agents do not report it`;
}

/** Is the job agent work a poll returns: a pending deployment, or an issuance/renewal awaiting a CSR. */
export function isAgentWork(type: JobType, status: JobStatus): boolean {
  return (
    (type === 'Deployment' && status === 'Pending') ||
    ((type === 'Issuance' || type === 'Renewal') && status === 'AwaitingCSR')
  );
}
