/** A serial as the revocation service keys it: lower-case hex, no leading zeros (`0` for zero). */
export function canonicalSerial(hex: string): string {
  return hex.toLowerCase().replace(/^0+/, '') || '0';
}
