import { createHash } from 'node:crypto';

/**
 * The fingerprint of an SSH host key blob as OpenSSH prints it (`ssh-keygen -lf`, the
 * known_hosts prompt): `SHA256:` and the base64 of the SHA-256 digest without `=` padding.
 */
export function openSshFingerprint(hostKeyBlob: Buffer): string {
  return `SHA256:${createHash('sha256').update(hostKeyBlob).digest('base64').replace(/=+$/, '')}`;
}

export type HostKeyDecision =
  { accept: true; fingerprint: string } | { accept: false; fingerprint: string; reason: string };

/**
 * Whether to trust the host key the server presented: only when it equals the pinned
 * `host_key_fingerprint` (a missing pin refuses: there is no trust on first use). The pin may
 * carry the padding `=` OpenSSH leaves off; the `SHA256:` prefix is required.
 */
export function hostKeyDecision(pin: unknown, hostKeyBlob: Buffer): HostKeyDecision {
  const fingerprint = openSshFingerprint(hostKeyBlob);
  if (typeof pin !== 'string' || pin.trim() === '') {
    return {
      accept: false,
      fingerprint,
      reason: `no host_key_fingerprint is pinned; the server presents ${fingerprint}`,
    };
  }
  const normalised = pin.trim().replace(/=+$/, '');
  if (!/^SHA256:[A-Za-z0-9+/]{43}$/.test(normalised)) {
    return {
      accept: false,
      fingerprint,
      reason: 'host_key_fingerprint is not an OpenSSH SHA256 fingerprint (SHA256:<base64>)',
    };
  }
  if (normalised !== fingerprint) {
    return {
      accept: false,
      fingerprint,
      reason: `host key mismatch: the server presents ${fingerprint}, the target pins ${normalised}`,
    };
  }
  return { accept: true, fingerprint };
}
