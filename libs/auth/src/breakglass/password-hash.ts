import { randomBytes, scrypt, ScryptOptions, timingSafeEqual } from 'node:crypto';

/**
 * Break-glass password hashing with scrypt, a memory-hard KDF (docs/decisions/0018). The stored
 * form carries its parameters and salt, PHC-style:
 *
 *   $scrypt$ln=15,r=8,p=1$<salt, base64>$<hash, base64>
 *
 * N = 2^15, r = 8, p = 1 needs 128·N·r = 32 MiB per hash, so `maxmem` is raised above Node's
 * 32 MiB default. Stored parameters are bounded before use, so a damaged row cannot make the
 * service allocate gigabytes.
 */
export interface ScryptParams {
  logN: number;
  r: number;
  p: number;
  keyLength: number;
  saltLength: number;
}
export const SCRYPT_PARAMS: Readonly<ScryptParams> = { logN: 15, r: 8, p: 1, keyLength: 32, saltLength: 16 };
const MAX_LOG_N = 20;
const MAX_R = 16;
const MAX_P = 4;
const FORMAT = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d)\$([A-Za-z0-9+/]+={0,2})\$([A-Za-z0-9+/]+={0,2})$/;

function derive(password: string, salt: Buffer, logN: number, r: number, p: number, length: number) {
  const N = 2 ** logN;
  const options: ScryptOptions = { N, r, p, maxmem: 2 * 128 * N * r * p + 1024 * 1024 };
  return new Promise<Buffer>((resolve, reject) =>
    scrypt(password.normalize('NFC'), salt, length, options, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  );
}

export async function hashPassword(
  password: string,
  params: Readonly<ScryptParams> = SCRYPT_PARAMS,
): Promise<string> {
  const salt = randomBytes(params.saltLength);
  const hash = await derive(password, salt, params.logN, params.r, params.p, params.keyLength);
  return `$scrypt$ln=${params.logN},r=${params.r},p=${params.p}$${salt.toString('base64')}$${hash.toString('base64')}`;
}

/** True when `password` matches `encoded`; false for a wrong password or a malformed hash. */
export async function verifyPassword(password: string, encoded: string): Promise<boolean> {
  const match = FORMAT.exec(encoded);
  if (!match) return false;
  const [logN, r, p] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (logN < 1 || logN > MAX_LOG_N || r < 1 || r > MAX_R || p < 1 || p > MAX_P) return false;
  const salt = Buffer.from(match[4], 'base64');
  const expected = Buffer.from(match[5], 'base64');
  if (expected.length < 16 || expected.length > 64) return false;
  const actual = await derive(password, salt, logN, r, p, expected.length);
  return timingSafeEqual(actual, expected);
}
