import { Certificate, CertificateInput, toCertificate } from './certificate';
import { PkiError } from './errors';
import { signatureAlgorithmOf, verifySignature } from './signature-algorithm';

/** Longest path considered (leaf + intermediates + anchor); longer ones are refused, cycles end. */
export const MAX_CHAIN_LENGTH = 10;

function mayHaveIssued(issuer: Certificate, child: Certificate): boolean {
  if (!issuer.subject.der.equals(child.issuer.der)) return false;
  const aki = child.decoded.authorityKeyIdentifier;
  const ski = issuer.decoded.subjectKeyIdentifier;
  return !aki || !ski || aki.equals(ski);
}

/** `child`'s signature verifies with `issuer`'s key (weak or unknown algorithms count as failing). */
export function isSignedBy(child: Certificate, issuer: Certificate): boolean {
  let algorithm;
  try {
    algorithm = signatureAlgorithmOf(child.signatureAlgorithm, 'certificate');
  } catch {
    return false;
  }
  try {
    return verifySignature(algorithm, issuer.publicKey, child.tbs, child.signature);
  } catch {
    return false;
  }
}

/** `issuer` issued `child`: its subject is child's issuer, key identifiers agree, the signature verifies. */
export function isIssuerOf(issuer: Certificate, child: Certificate): boolean {
  return mayHaveIssued(issuer, child) && isSignedBy(child, issuer);
}

/**
 * Orders a bundle: the certificate first, then its issuer, and so on, as far as `pool` allows
 * (name, key identifier and signature must match). Used to assemble `chain_pem` from whatever
 * order certificates were stored in. No trust decision is made here; see `verifyChain`.
 */
export function buildChain(certificate: CertificateInput, pool: readonly CertificateInput[]): Certificate[] {
  const leaf = toCertificate(certificate);
  const candidates = pool.map(toCertificate);
  const chain = [leaf];
  let current = leaf;
  while (chain.length < MAX_CHAIN_LENGTH && !current.selfIssued) {
    const issuer = candidates.find(
      (c) => !chain.some((x) => x.fingerprintSha256 === c.fingerprintSha256) && isIssuerOf(c, current),
    );
    if (!issuer) break;
    chain.push(issuer);
    current = issuer;
  }
  return chain;
}

export interface VerifyChainOptions {
  certificate: CertificateInput;
  intermediates?: readonly CertificateInput[];
  trustAnchors: readonly CertificateInput[];
  /** The time the chain must be valid at (default now). */
  at?: Date;
}

function invalid(message: string, certificate: Certificate, reason: string): PkiError {
  return new PkiError('chain_invalid', message, {
    reason,
    subject: certificate.subject.text,
    serial: certificate.serialNumber,
  });
}

/**
 * Builds a path from `certificate` through `intermediates` to one of `trustAnchors` and verifies
 * it (RFC 5280 6.1 in the parts that apply to Certlane's CAs): every signature with its issuer's
 * key, every certificate within its validity at `at`, every issuer a CA (basicConstraints cA, and
 * keyCertSign when key usage is present), path length constraints, and no unknown critical
 * extension. Returns the path, leaf first and anchor last. `chain_incomplete` when no path to an
 * anchor exists; `chain_invalid` (with `details.reason`) when the only path fails a check.
 */
export function verifyChain(options: VerifyChainOptions): Certificate[] {
  const at = options.at ?? new Date();
  const leaf = toCertificate(options.certificate);
  const intermediates = (options.intermediates ?? []).map(toCertificate);
  const anchors = options.trustAnchors.map(toCertificate);
  if (anchors.length === 0) throw new PkiError('chain_incomplete', 'no trust anchors given');

  const path = [leaf];
  let current = leaf;
  for (;;) {
    if (anchors.some((a) => a.fingerprintSha256 === current.fingerprintSha256)) break;
    const anchor = anchors.find((a) => mayHaveIssued(a, current) && isSignedBy(current, a));
    if (anchor) {
      path.push(anchor);
      break;
    }
    const named = [...anchors, ...intermediates].filter(
      (c) => mayHaveIssued(c, current) && !path.some((p) => p.fingerprintSha256 === c.fingerprintSha256),
    );
    const issuer = intermediates.find((c) => named.includes(c) && isSignedBy(current, c));
    if (!issuer) {
      if (named.length > 0)
        throw invalid(
          `the signature of ${current.subject.text} does not verify with its issuer's key`,
          current,
          'signature',
        );
      if (current.selfIssued && isSignedBy(current, current)) {
        throw new PkiError(
          'chain_incomplete',
          `${current.subject.text} is a self-signed certificate that is not a trust anchor`,
          {
            subject: current.subject.text,
          },
        );
      }
      throw new PkiError('chain_incomplete', `no issuer found for ${current.subject.text}`, {
        subject: current.subject.text,
      });
    }
    path.push(issuer);
    current = issuer;
    if (path.length > MAX_CHAIN_LENGTH) throw invalid('certificate path is too long', current, 'path_length');
  }

  path.forEach((cert, index) => {
    if (at < cert.notBefore)
      throw invalid(
        `${cert.subject.text} is not valid before ${cert.notBefore.toISOString()}`,
        cert,
        'not_yet_valid',
      );
    if (at > cert.notAfter)
      throw invalid(`${cert.subject.text} expired at ${cert.notAfter.toISOString()}`, cert, 'expired');
    if (cert.decoded.unhandledCritical.length) {
      throw invalid(
        `${cert.subject.text} has unknown critical extensions ${cert.decoded.unhandledCritical.join(', ')}`,
        cert,
        'critical_extension',
      );
    }
    if (index === 0) return;
    const { basicConstraints, keyUsage } = cert.decoded;
    const isAnchor = index === path.length - 1;
    // A v1 trust anchor has no extensions and is accepted as a CA, as OpenSSL does.
    if (!basicConstraints?.ca && !(isAnchor && cert.version === 1)) {
      throw invalid(`${cert.subject.text} issued a certificate but is not a CA`, cert, 'not_a_ca');
    }
    if (keyUsage && !keyUsage.includes('keyCertSign')) {
      throw invalid(
        `${cert.subject.text} issued a certificate without the keyCertSign usage`,
        cert,
        'key_usage',
      );
    }
    // Non-self-issued intermediates between this CA and the leaf (RFC 5280 6.1.4 (l)/(m)).
    const below = path.slice(1, index).filter((c) => !c.selfIssued).length;
    if (basicConstraints?.pathLength !== undefined && below > basicConstraints.pathLength) {
      throw invalid(
        `${cert.subject.text} allows ${basicConstraints.pathLength} CAs below it, the path has ${below}`,
        cert,
        'path_length',
      );
    }
  });
  return path;
}
