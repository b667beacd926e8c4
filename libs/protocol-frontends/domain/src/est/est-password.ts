import { createHash, randomBytes, scrypt, scryptSync, ScryptOptions, timingSafeEqual } from 'node:crypto';

const PARAMS = { N: 16384, r: 8, p: 1 } as const;
const KEY_LENGTH = 32;

/**
 * The key derivation a Basic password is checked with. Requests run it concurrently, so it must
 * not hold the event loop (ADR 0058 amendment): `scryptOnThreadpool` is the one used.
 */
export type EstPasswordKdf = (
  password: string,
  salt: Buffer,
  keyLength: number,
  options: ScryptOptions,
) => Promise<Buffer>;

/** scrypt on libuv's threadpool: the event loop serves other requests while it runs (about 40 ms). */
export const scryptOnThreadpool: EstPasswordKdf = (password, salt, keyLength, options) =>
  new Promise((resolve, reject) =>
    scrypt(password, salt, keyLength, options, (error, key) => (error ? reject(error) : resolve(key))),
  );

/**
 * A Basic password's stored form: `scrypt$N$r$p$salt$hash` (base64url); the password is never
 * stored. Synchronous: an admin's profile change, not an EST request.
 */
export function hashEstPassword(password: string, salt: Buffer = randomBytes(16)): string {
  const hash = scryptSync(password, salt, KEY_LENGTH, PARAMS);
  return [
    'scrypt',
    PARAMS.N,
    PARAMS.r,
    PARAMS.p,
    salt.toString('base64url'),
    hash.toString('base64url'),
  ].join('$');
}

interface StoredHash {
  salt: Buffer;
  expected: Buffer;
  options: ScryptOptions;
}

const optionsOf = (N: number, r: number, p: number): ScryptOptions => ({ N, r, p, maxmem: 256 * N * r });

/** A stored hash read, or null when it is not one `hashEstPassword` could have written. */
function readStored(stored: string): StoredHash | null {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return null;
  const [N, r, p] = parts.slice(1, 4).map(Number);
  if (![N, r, p].every((n) => Number.isInteger(n) && n > 0) || N > 1 << 20) return null;
  const expected = Buffer.from(parts[5], 'base64url');
  if (expected.length !== KEY_LENGTH) return null;
  return { salt: Buffer.from(parts[4], 'base64url'), expected, options: optionsOf(N, r, p) };
}

/**
 * What a request is checked against when there is nothing to check it against (a wrong username,
 * no stored password, a malformed hash): the parameters `hashEstPassword` writes, so it costs what
 * a real check costs; its result is never believed.
 */
const DUMMY: StoredHash = {
  salt: Buffer.alloc(16),
  expected: Buffer.alloc(KEY_LENGTH),
  options: optionsOf(PARAMS.N, PARAMS.r, PARAMS.p),
};

/**
 * Whether `password` matches a stored hash, compared in constant time. Exactly one KDF run,
 * off the event loop, whatever `stored` holds; a malformed hash matches nothing.
 */
export async function verifyEstPassword(
  password: string,
  stored: string,
  kdf: EstPasswordKdf = scryptOnThreadpool,
): Promise<boolean> {
  const read = readStored(stored);
  const used = read ?? DUMMY;
  const actual = await kdf(password, used.salt, KEY_LENGTH, used.options);
  return timingSafeEqual(actual, used.expected) && read !== null;
}

const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/**
 * HTTP Basic credentials against a profile's username and stored password (RFC 7617). The
 * usernames are compared in constant time (as SHA-256 digests, so their lengths do not show), and
 * the password's KDF runs once whether the username matches or not: a right username costs what
 * a wrong one costs, so the answer's timing does not tell usernames apart (ADR 0058 amendment).
 */
export async function verifyEstBasicCredentials(
  sent: { username: string; password: string },
  expected: { username: string | null; passwordHash: string | null },
  kdf: EstPasswordKdf = scryptOnThreadpool,
): Promise<boolean> {
  const usernameMatches =
    expected.username !== null && timingSafeEqual(digest(sent.username), digest(expected.username));
  const passwordMatches = await verifyEstPassword(sent.password, expected.passwordHash ?? '', kdf);
  return usernameMatches && passwordMatches;
}
