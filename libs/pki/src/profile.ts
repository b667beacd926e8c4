import { CertificateTemplate } from './certificate-builder';
import { CertificationRequest } from './csr';
import { PkiError } from './errors';
import { SubjectAltNameInput } from './extensions/general-name';
import { KeyUsage } from './extensions/standard';
import { KeyPolicy, PublicKeyInfo } from './keys/public-key';
import { NameInput } from './name';

/** How a leaf certificate is made from a CSR. Everything is optional; see the defaults. */
export interface LeafProfile {
  /** Validity from `now` (default 90 days). `validitySeconds` wins when both are set. */
  validityDays?: number;
  validitySeconds?: number;
  /** notBefore = now - backdate, for relying parties with slow clocks (default 0). */
  backdateSeconds?: number;
  /**
   * An exact validity asked for (ACME's notBefore/notAfter): notBefore wins over the backdate,
   * notAfter over the validity (which then runs from notBefore).
   */
  notBefore?: Date;
  notAfter?: Date;
  /** Default: digitalSignature, plus keyEncipherment for RSA keys. */
  keyUsage?: readonly KeyUsage[];
  /** Default: serverAuth and clientAuth. */
  extendedKeyUsage?: readonly string[];
  mustStaple?: boolean;
  keyPolicy?: KeyPolicy;
  /** Replace the CSR's subject (default: the CSR's subject bytes, copied verbatim). */
  subject?: NameInput;
  /** Replace the CSR's requested SANs (default: the requested ones). */
  subjectAltNames?: readonly SubjectAltNameInput[];
}

const DAY = 86_400;
export const DEFAULT_LEAF_VALIDITY_DAYS = 90;

const RSA_KEY_USAGE: readonly KeyUsage[] = Object.freeze([
  'digitalSignature',
  'keyEncipherment',
] as KeyUsage[]);
const SIGNING_KEY_USAGE: readonly KeyUsage[] = Object.freeze(['digitalSignature'] as KeyUsage[]);
const DEFAULT_EKU: readonly string[] = Object.freeze(['serverAuth', 'clientAuth']);

/** digitalSignature, plus keyEncipherment for RSA (TLS 1.2 RSA key exchange). */
export function defaultKeyUsage(key: PublicKeyInfo): readonly KeyUsage[] {
  return key.algorithm === 'RSA' ? RSA_KEY_USAGE : SIGNING_KEY_USAGE;
}

/** The certificate template for a CSR under a profile, at `now`. */
export function templateFromCsr(
  csr: CertificationRequest,
  profile: LeafProfile = {},
  now = new Date(),
): CertificateTemplate {
  const seconds = profile.validitySeconds ?? (profile.validityDays ?? DEFAULT_LEAF_VALIDITY_DAYS) * DAY;
  if (!Number.isFinite(seconds) || seconds <= 0)
    throw new PkiError('profile_invalid', 'validity must be positive');
  const backdate = profile.backdateSeconds ?? 0;
  if (!Number.isFinite(backdate) || backdate < 0)
    throw new PkiError('profile_invalid', 'backdateSeconds must not be negative');
  const subjectAltNames = profile.subjectAltNames ?? csr.subjectAltNames.map(sanFromRequest);
  const notBefore = profile.notBefore ?? new Date(now.getTime() - backdate * 1000);
  const notAfter = profile.notAfter ?? new Date((profile.notBefore ?? now).getTime() + seconds * 1000);
  if (!(notAfter.getTime() > notBefore.getTime()))
    throw new PkiError('profile_invalid', 'notAfter must be later than notBefore');
  return {
    publicKey: csr.publicKey,
    subject: profile.subject ?? csr.subject.der,
    subjectAltNames,
    notBefore,
    notAfter,
    keyUsage: profile.keyUsage ?? defaultKeyUsage(csr.publicKey),
    extendedKeyUsage: profile.extendedKeyUsage ?? DEFAULT_EKU,
    mustStaple: profile.mustStaple,
    keyPolicy: profile.keyPolicy,
  };
}

function sanFromRequest(name: { type: string; value: string }): SubjectAltNameInput {
  switch (name.type) {
    case 'dns':
    case 'ip':
    case 'email':
    case 'uri':
      return { type: name.type, value: name.value };
    default:
      throw new PkiError(
        'san_invalid',
        `the CSR requests a ${name.type} subject alternative name, which is not supported`,
      );
  }
}
