import { ProbeVerdict } from './health-status';

/** The raw result of one TLS probe, as the prober records it in the history. */
export type ProbeObservation =
  | {
      kind: 'handshake';
      fingerprint: string;
      notBefore: Date;
      notAfter: Date;
    }
  | { kind: 'error'; error: string };

/**
 * Judges a probe: a handshake serving a certificate outside its validity window is a failure
 * (the endpoint is broken for its clients), with the reason as the error text.
 */
export function judgeProbe(observation: ProbeObservation, now: Date): ProbeVerdict {
  if (observation.kind === 'error') return { kind: 'failed', error: observation.error };
  if (observation.notAfter.getTime() <= now.getTime()) {
    return { kind: 'failed', error: `certificate expired at ${observation.notAfter.toISOString()}` };
  }
  if (observation.notBefore.getTime() > now.getTime()) {
    return { kind: 'failed', error: `certificate not valid before ${observation.notBefore.toISOString()}` };
  }
  return { kind: 'served', fingerprint: observation.fingerprint };
}
