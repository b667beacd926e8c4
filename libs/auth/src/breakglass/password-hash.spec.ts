import { hashPassword, SCRYPT_PARAMS, verifyPassword } from './password-hash';

const PASSWORD = 'correct horse battery staple';

describe(hashPassword.name, () => {
  let stored: string;

  beforeAll(async () => {
    stored = await hashPassword(PASSWORD);
  });

  it('stores scrypt with N=2^15, r=8, p=1, a 16-byte salt and a 32-byte hash', () => {
    const match = /^\$scrypt\$ln=15,r=8,p=1\$([^$]+)\$([^$]+)$/.exec(stored);
    expect(match).not.toBeNull();
    expect(Buffer.from(match![1], 'base64')).toHaveLength(16);
    expect(Buffer.from(match![2], 'base64')).toHaveLength(32);
    expect(SCRYPT_PARAMS.logN).toBeGreaterThanOrEqual(15);
  });

  it('never contains the password', () => {
    expect(stored).not.toContain(PASSWORD);
    expect(stored).not.toContain(Buffer.from(PASSWORD).toString('base64'));
  });

  it('salts each hash: the same password hashes differently twice', async () => {
    expect(await hashPassword(PASSWORD)).not.toBe(stored);
  });

  it('verifies the right password and refuses a wrong one', async () => {
    expect(await verifyPassword(PASSWORD, stored)).toBe(true);
    expect(await verifyPassword(`${PASSWORD}!`, stored)).toBe(false);
    expect(await verifyPassword('', stored)).toBe(false);
  });

  it('uses the parameters stored with the hash, so stronger settings later still verify old hashes', async () => {
    const light = await hashPassword(PASSWORD, { ...SCRYPT_PARAMS, logN: 10 });
    expect(light).toMatch(/^\$scrypt\$ln=10,/);
    expect(await verifyPassword(PASSWORD, light)).toBe(true);
  });

  it('refuses malformed hashes and out-of-bounds parameters without deriving anything', async () => {
    const [, , , salt, hash] = stored.split('$');
    expect(await verifyPassword(PASSWORD, 'not-a-hash')).toBe(false);
    expect(await verifyPassword(PASSWORD, `$scrypt$ln=30,r=8,p=1$${salt}$${hash}`)).toBe(false);
    expect(await verifyPassword(PASSWORD, `$scrypt$ln=15,r=64,p=1$${salt}$${hash}`)).toBe(false);
    expect(await verifyPassword(PASSWORD, `$scrypt$ln=15,r=8,p=1$${salt}$AAAA`)).toBe(false);
    expect(await verifyPassword(PASSWORD, stored.replace('$scrypt$', '$argon2$'))).toBe(false);
  });

  it('detects a changed hash byte', async () => {
    const parts = stored.split('$');
    const bytes = Buffer.from(parts[4], 'base64');
    bytes[0] ^= 1;
    parts[4] = bytes.toString('base64');
    expect(await verifyPassword(PASSWORD, parts.join('$'))).toBe(false);
  });
});
