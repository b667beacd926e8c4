/** RFC 8894 3.2.1.2 messageType values (PrintableString of the decimal number). */
export const SCEP_MESSAGE_TYPES = {
  CertRep: '3',
  RenewalReq: '17',
  PKCSReq: '19',
  CertPoll: '20',
  GetCert: '21',
  GetCRL: '22',
} as const;
export type ScepMessageTypeName = keyof typeof SCEP_MESSAGE_TYPES;

/** RFC 8894 3.2.1.3 pkiStatus. */
export const SCEP_PKI_STATUS = { SUCCESS: '0', FAILURE: '2', PENDING: '3' } as const;
export type ScepPkiStatus = keyof typeof SCEP_PKI_STATUS;

/** RFC 8894 3.2.1.4 failInfo. */
export const SCEP_FAIL_INFO = {
  badAlg: '0',
  badMessageCheck: '1',
  badRequest: '2',
  badTime: '3',
  badCertId: '4',
} as const;
export type ScepFailInfo = keyof typeof SCEP_FAIL_INFO;

export function messageTypeName(value: string): ScepMessageTypeName | undefined {
  return (Object.keys(SCEP_MESSAGE_TYPES) as ScepMessageTypeName[]).find(
    (name) => SCEP_MESSAGE_TYPES[name] === value,
  );
}

/**
 * RFC 8894 3.5.2 GetCACaps: exactly what this server implements, one per line. DES3 is named
 * only on a profile that enables legacy algorithms, which does not claim SCEPStandard: that
 * implies 2.9, which forbids the single DES and MD5 such a profile accepts. SHA-384, which RFC
 * 8894 does not list but requests may use, is named too: strongSwan 5.9.8's `pki --scep` (Debian
 * 12) reads the capabilities through mismatched bit masks and accepts AES and SHA-256 only when it
 * sees SHA-384 (strongswan/strongswan#1607); clients ignore keywords they do not know (3.5.2).
 */
export function scepCapabilities(legacy: boolean): string[] {
  return [
    'POSTPKIOperation',
    'SHA-256',
    'SHA-384',
    'SHA-512',
    'AES',
    ...(legacy ? [] : ['SCEPStandard']),
    'Renewal',
    ...(legacy ? ['DES3', 'SHA-1'] : []),
  ];
}

/** The SCEP URL path of a profile: `default` is `/scep`. */
export function scepUrlPath(pathId: string, defaultPathId = 'default'): string {
  return pathId === defaultPathId ? '/scep' : `/scep/${pathId}`;
}
