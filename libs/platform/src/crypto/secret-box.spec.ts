import { SecretBox, SecretBoxError } from './secret-box';

const KEY = 'a-real-encryption-key-of-32-chars-or-more!';

describe('SecretBox', () => {
  const box = new SecretBox(KEY, 'issuer config');

  it('opens what it sealed, as text and as bytes', () => {
    const sealed = box.seal('{"token":"s3cret"}', 'iss-a');
    expect(box.open(sealed, 'iss-a')).toBe('{"token":"s3cret"}');
    const bytes = Buffer.from([0, 1, 2, 255]);
    expect(box.openBuffer(box.seal(bytes, 'x'), 'x')).toEqual(bytes);
  });

  it('produces a versioned text form without the plaintext, different each time', () => {
    const a = box.seal('s3cret-value', 'iss-a');
    const b = box.seal('s3cret-value', 'iss-a');
    expect(a).toMatch(/^v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(a).not.toContain('s3cret');
    expect(a).not.toBe(b);
  });

  it('refuses another binding, another purpose and another key', () => {
    const sealed = box.seal('s3cret', 'iss-a');
    expect(() => box.open(sealed, 'iss-b')).toThrow(SecretBoxError);
    expect(() => new SecretBox(KEY, 'ca key').open(sealed, 'iss-a')).toThrow(SecretBoxError);
    expect(() => new SecretBox(`${KEY}x`, 'issuer config').open(sealed, 'iss-a')).toThrow(/does not open/);
  });

  it('refuses tampered and malformed values with a clear error', () => {
    const sealed = box.seal('s3cret', 'iss-a');
    const parts = sealed.split('.');
    const flipped = Buffer.from(parts[2], 'base64url');
    flipped[0] ^= 1;
    parts[2] = flipped.toString('base64url');
    expect(() => box.open(parts.join('.'), 'iss-a')).toThrow(/does not open/);
    expect(() => box.open('v2.a.b.c', 'iss-a')).toThrow(/unknown version/);
    expect(() => box.open('garbage', 'iss-a')).toThrow(/malformed/);
    expect(() => box.open('v1.AA.AA.AA', 'iss-a')).toThrow(/malformed/);
  });

  it('needs a purpose label and enough key material', () => {
    expect(() => new SecretBox(KEY, '')).toThrow(/info label/);
    expect(() => new SecretBox('short', 'x')).toThrow(/too short/);
  });
});
