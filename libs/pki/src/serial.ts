import { randomFillSync } from 'node:crypto';
import { PkiError } from './errors';

/** Octets of a serial Certlane assigns: 17 random octets, the first 01xxxxxx (positive, no leading zero). */
export const SERIAL_OCTETS = 17;

/**
 * A fresh serial number: 134 random bits (at least the 128 the issue asks for, and above the 64
 * of the CA/Browser Forum baseline), always positive and always 17 octets, so its DER length is
 * fixed. Returned as the INTEGER's content octets.
 */
export function randomSerial(): Buffer {
  if (poolOffset + SERIAL_OCTETS > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const bytes = Buffer.allocUnsafe(SERIAL_OCTETS);
  pool.copy(bytes, 0, poolOffset, poolOffset + SERIAL_OCTETS);
  // Bytes taken from the pool are overwritten so they can never be handed out twice.
  pool.fill(0, poolOffset, poolOffset + SERIAL_OCTETS);
  poolOffset += SERIAL_OCTETS;
  bytes[0] = (bytes[0] & 0x3f) | 0x40;
  return bytes;
}

// One CSPRNG call per 240 serials instead of one per serial.
const pool = Buffer.alloc(SERIAL_OCTETS * 240);
let poolOffset = pool.length;

/** Lower-case hex of an INTEGER's content octets, with a sign-padding 00 removed. */
export function serialHex(contentOctets: Uint8Array): string {
  const buf = Buffer.from(contentOctets.buffer, contentOctets.byteOffset, contentOctets.byteLength);
  const start = buf.length > 1 && buf[0] === 0 ? 1 : 0;
  return buf.toString('hex', start);
}

/**
 * The content octets of a serial given as hex (as in `GET /ocsp/{issuer}/{serial}`): 1 to 40 hex
 * digits (colons allowed between pairs, case-insensitive), a positive value of at most 20 octets
 * (RFC 5280 4.1.2.2). Anything else is `serial_invalid`.
 */
export function parseSerialHex(text: string): Buffer {
  if (typeof text !== 'string') throw new PkiError('serial_invalid', 'serial number must be a hex string');
  const compact = /^[0-9A-Fa-f]{2}(:[0-9A-Fa-f]{2})+$/.test(text) ? text.replace(/:/g, '') : text;
  if (!/^[0-9A-Fa-f]{1,42}$/.test(compact)) {
    throw new PkiError('serial_invalid', `serial number ${JSON.stringify(text.slice(0, 64))} is not hex`, {
      serial: text.slice(0, 64),
    });
  }
  let hex = compact.toLowerCase().replace(/^0+/, '');
  if (hex === '') throw new PkiError('serial_invalid', 'serial number must be positive', { serial: text });
  if (hex.length % 2) hex = `0${hex}`;
  const magnitude = Buffer.from(hex, 'hex');
  const octets = magnitude[0] & 0x80 ? Buffer.concat([Buffer.of(0), magnitude]) : magnitude;
  if (octets.length > 20) {
    throw new PkiError('serial_invalid', 'serial number is longer than 20 octets', {
      serial: text.slice(0, 64),
    });
  }
  return octets;
}
